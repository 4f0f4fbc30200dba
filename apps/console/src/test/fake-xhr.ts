import { vi } from 'vitest';

/** XMLHttpRequest as the console's uploads use it (`apiUpload` in lib/api-client.ts); the test answers it. */
export class FakeXhr {
  static last: FakeXhr | undefined;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: FormData | undefined;
  status = 0;
  responseText = '';
  upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.onabort?.();
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

/** Every upload is answered, in the task after its send, with `status` and `body` (undone by `vi.unstubAllGlobals`). */
export function answerUploads(status: number, body: unknown): void {
  class AnsweringXhr extends FakeXhr {
    override send(form: FormData) {
      super.send(form);
      setTimeout(() => this.answer(status, body), 0);
    }
  }
  vi.stubGlobal('XMLHttpRequest', AnsweringXhr);
}

/** The server's refusal of a malformed request, as every upload's answer. */
export function refuseUploadsAsMalformed(): void {
  answerUploads(400, { errorToken: 'malformedRequest', errorDescription: 'The request is malformed' });
}
