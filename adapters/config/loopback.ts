import { isIP } from 'node:net';

/**
 * Whether a host name or address can only be reached from this machine: `localhost` (RFC 6761 reserves
 * it for loopback), IPv4 127.0.0.0/8, IPv6 ::1, and 127.0.0.0/8 written as an IPv4-mapped IPv6 address.
 * Brackets of a URL's IPv6 host are accepted. Anything else (0.0.0.0, ::, a pod IP, a DNS name) is not:
 * it may be reachable from elsewhere. Used for settings that are safe only when nobody else can
 * connect (authentication off, credentials over plain http).
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  switch (isIP(bare)) {
    case 4: return bare.split('.')[0] === '127';
    case 6: {
      if (bare === '::1' || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(bare)) return true;
      // IPv4-mapped (::ffff:127.0.0.1), which the URL parser rewrites in hex (::ffff:7f00:1).
      const dotted = /^(?:0{0,4}:){1,5}ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
      if (dotted !== undefined) return isLoopbackHost(dotted);
      const hex = /^(?:0{0,4}:){1,5}ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(bare)?.[1];
      return hex !== undefined ? parseInt(hex, 16) >> 8 === 127 : false;
    }
    default: return false;
  }
}

/** Whether a URL may carry secrets in clear: https anywhere, http only to a loopback host. */
export function isSecureOrLoopbackUrl(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || isLoopbackHost(parsed.hostname);
}
