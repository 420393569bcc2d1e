// The egress guard: addresses that may not be reached however they are written, names that
// resolve to them (in any of their answers), and what the operator's allowlist opens.
import { describe, expect, it } from 'vitest';
import { checkTarget, deniedRange, EgressRefusal, type Resolver } from '../../src/sandbox/egress.js';

const dnsAnswers: Record<string, string[]> = {
  'public.test': ['93.184.216.34'],
  'mixed.test': ['93.184.216.34', '10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'v6local.test': ['2606:4700::1111', '::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'fixture.test': ['127.0.0.2'],
};
const resolve: Resolver = async (host) => {
  const a = dnsAnswers[host];
  if (!a) throw new Error('ENOTFOUND');
  return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const policy = (allow: string[] = []) => ({ allow, resolve });

describe('deniedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'linkLocal'],
    // IPv4-translated (RFC 2765), in its spellings.
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['0:0:0:0:ffff:0:a9fe:a9fe', 'linkLocal'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::ffff:0:0.0.0.0', 'unspecified'],
    // Special-purpose IPv6 that is no global unicast, whatever it carries.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['100::1', 'discard'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:10::1', 'deprecatedOrchid'],
  ])('%s is %s', (address, range) => {
    expect(deniedRange(address)).toBe(range);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34', '64:ff9b::808:808', '::ffff:0:8.8.8.8'])('%s may be reached', (address) => {
    expect(deniedRange(address)).toBeNull();
  });
});

describe('checkTarget', () => {
  it.each([
    ['http://127.0.0.1/', /127\.0\.0\.1: loopback addresses are not allowed/],
    ['http://[::1]:8080/', /::1: loopback/],
    ['http://[::ffff:7f00:1]/', /loopback/],
    ['http://0x7f000001/', /loopback/],
    ['http://2130706433/', /loopback/],
    ['http://017700000001/', /loopback/],
    ['http://127.1/', /loopback/],
    ['http://169.254.169.254/latest/meta-data/', /linkLocal/],
    ['http://metadata.test/', /metadata\.test resolves to 169\.254\.169\.254: linkLocal/],
    ['http://mixed.test/', /mixed\.test resolves to 10\.0\.0\.7: private/],
    ['http://v6local.test/', /resolves to ::1: loopback/],
    ['http://mapped.test/', /resolves to ::ffff:127\.0\.0\.1: loopback/],
    ['http://user:pw@public.test/', /credentials/],
    ['http://public.test@127.0.0.1/', /credentials/],
    ['file:///etc/passwd', /file: URLs are not allowed/],
    ['gopher://public.test/', /gopher: URLs are not allowed/],
    ['ftp://public.test/', /ftp: URLs are not allowed/],
    ['not a url', /is not a URL/],
    ['http://nowhere.test/', /does not resolve/],
  ])('%s is refused', async (url, why) => {
    const err = await checkTarget(url, policy()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressRefusal);
    expect((err as Error).message).toMatch(why);
  });

  it('resolves a public name once and pins its address', async () => {
    await expect(checkTarget('https://public.test/hook', policy())).resolves.toMatchObject({ address: '93.184.216.34', family: 4 });
  });

  it('the allowlist opens exactly what it names: an address, a CIDR, a host', async () => {
    await expect(checkTarget('http://127.0.0.2:9/', policy(['127.0.0.2']))).resolves.toMatchObject({ address: '127.0.0.2' });
    await expect(checkTarget('http://127.0.0.1:9/', policy(['127.0.0.2']))).rejects.toThrow(/loopback/);
    await expect(checkTarget('http://10.1.2.3/', policy(['10.1.0.0/16']))).resolves.toMatchObject({ address: '10.1.2.3' });
    await expect(checkTarget('http://10.2.0.1/', policy(['10.1.0.0/16']))).rejects.toThrow(/private/);
    await expect(checkTarget('http://fixture.test/', policy(['fixture.test']))).resolves.toMatchObject({ address: '127.0.0.2' });
    await expect(checkTarget('http://mixed.test/', policy(['*.other.test']))).rejects.toThrow(/private/);
  });
});
