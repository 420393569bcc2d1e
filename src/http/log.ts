// What request log lines may show of a URL: an event ticket is a credential (single use, 60 s,
// but still a credential), so its value never reaches a log.
export function redactTicket(url: string): string {
  return url.includes('ticket=') ? url.replace(/([?&]ticket=)[^&#]*/g, '$1[redacted]') : url;
}

/** A request as its log lines show it: the ticket out of the URL. */
export function logRequest(req: { method: string; url: string; hostname?: string; ip?: string; id: string }) {
  return { method: req.method, url: redactTicket(req.url), host: req.hostname, remoteAddress: req.ip, id: req.id };
}
