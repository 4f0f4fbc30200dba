import { ModalsProvider } from '@mantine/modals';
import type { TDeviceTemplate, TDsiEntry, TPackageFile } from '@manifold/contract';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, type TestLocale } from '../../../test/render';
import { DeviceTemplates } from './device-templates';
import { PackageBuilds } from './package-builds';
import { PackageFiles } from './package-files';

const created = '2026-11-01T10:00:00.000Z';

function file(index: number): TPackageFile {
  return {
    fileId: `file-${index}`,
    dsiId: 'dsi-1',
    fileName: `part-${index}.stl`,
    contentType: 'application/octet-stream',
    size: 5000,
    sha256: 'c'.repeat(64),
    isPublic: true,
    classification: null,
    dateCreated: created,
    dateModified: created,
    createdBy: 'admin',
  };
}

function template(index: number): TDeviceTemplate {
  return {
    deviceTemplateId: `template-${index}`,
    dsiId: 'dsi-1',
    name: `Template ${index}`,
    description: null,
    target: null,
    parameterVersion: null,
    parameterCount: 3,
    sha256: 'd'.repeat(64),
    dateCreated: created,
    createdBy: 'admin',
  };
}

function revision(index: number): TDsiEntry {
  return {
    version: index,
    dsiVersion: index,
    dsiId: 'dsi-1',
    designName: 'Bracket',
    dateCreated: created,
    publicKeySN: null,
    companyName: 'Acme',
    keyRoleSN: null,
    description: '',
    multiPlaten: false,
    displayImage: null,
    protectUserName: null,
    image_url: null,
    dsi_url: null,
    manage_url: 'https://manage.example',
    revisionId: `revision-${index}`,
    digestMethod: 'SHA-256',
    digestValue: 'e'.repeat(64),
    signature: 'signature',
  };
}

const some = <T,>(count: number, make: (index: number) => T) => Array.from({ length: count }, (_, index) => make(index + 1));

function renderIn(locale: TestLocale, ui: ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  renderWithProviders(
    <QueryClientProvider client={client}>
      <ModalsProvider>{ui}</ModalsProvider>
    </QueryClientProvider>,
    { locale },
  );
}

const caption = () => document.querySelector('caption')?.textContent;

describe('the captions of a package’s tabs count in the plural forms of the language', () => {
  it.each([
    ['en', 1, '1 file'],
    ['en', 2, '2 files'],
    ['es', 1, '1 archivo'],
    ['es', 2, '2 archivos'],
    ['zh', 1, '1 个文件'],
  ] as const)('files (%s, %i)', (locale, count, expected) => {
    renderIn(locale, <PackageFiles dsiId="dsi-1" files={some(count, file)} canEdit={false} />);
    expect(caption()).toBe(expected);
  });

  it.each([
    ['en', 1, '1 device template'],
    ['en', 2, '2 device templates'],
    ['es', 1, '1 plantilla de dispositivo'],
    ['zh', 1, '1 个设备模板'],
  ] as const)('device templates (%s, %i)', (locale, count, expected) => {
    renderIn(locale, <DeviceTemplates dsiId="dsi-1" templates={some(count, template)} canEdit={false} />);
    expect(caption()).toBe(expected);
  });

  it.each([
    ['en', 1, '1 revision'],
    ['en', 2, '2 revisions'],
    ['es', 1, '1 revisión'],
    ['zh', 1, '1 个版本'],
  ] as const)('builds (%s, %i)', (locale, count, expected) => {
    renderIn(locale, <PackageBuilds dsiId="dsi-1" revisions={some(count, revision)} canEdit={false} />);
    expect(caption()).toBe(expected);
  });
});
