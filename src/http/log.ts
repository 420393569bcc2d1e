// What request log lines may show of a URL: an event ticket is a credential (single use, 60 s,
// but still a credential), so its value never reaches a log.
export function redactTicket(url: string): string {
  return url.includes('ticket=') ? url.replace(/([?&]ticket=)[^&#]*/g, '$1[redacted]') : url;
}
