const apiPrefixes = ['/ui/', '/certificate/', '/apl/', '/fss/', '/mpf/', '/stp/'];

/** The console API, the partner interfaces and the health checks: everything that is not the console itself. */
export function isApiPath(url: string): boolean {
  return apiPrefixes.some((prefix) => url.startsWith(prefix)) || url === '/healthz' || url === '/readyz' || url === '/metrics';
}
