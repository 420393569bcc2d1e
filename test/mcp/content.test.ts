import { describe, it, expect } from 'vitest';
import { MAX_IMAGE_BASE64_CHARS, resourceBlocks, toolResultBlocks } from '../../src/mcp/content.js';

const PNG = Buffer.from('\x89PNG\r\n\x1a\n-not-really-a-png').toString('base64');
const HELLO = Buffer.from('hello').toString('base64'); // 'aGVsbG8=': 5 bytes, one '=' of padding
const TYPES = 'image/png, image/jpeg, image/gif, image/webp';

const text = (t: string) => ({ type: 'text', text: t });
const one = (content: unknown[]) => toolResultBlocks({ content }).content;

describe('toolResultBlocks: text', () => {
  it('text blocks stay text, in order', () => {
    expect(toolResultBlocks({ content: [text('a'), text('b')] })).toEqual({ content: [text('a'), text('b')], isError: false });
  });

  it('a text block without a string text becomes an empty text', () => {
    expect(one([{ type: 'text', text: 42 }, { type: 'text' }])).toEqual([text(''), text('')]);
  });
});

describe('toolResultBlocks: images', () => {
  it.each(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])('%s becomes an image block', (mime) => {
    expect(one([{ type: 'image', data: PNG, mimeType: mime }])).toEqual([{ type: 'image', source: { type: 'base64', media_type: mime, data: PNG } }]);
  });

  it('the media type is lowercased', () => {
    expect(one([{ type: 'image', data: PNG, mimeType: 'IMAGE/PNG' }])).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }]);
  });

  it.each([
    ['characters outside base64', 'not base64!'],
    ['base64url alphabet', 'ab-_'],
    ['padding in the middle', 'ab=cd'],
    ['three padding characters', 'abc==='],
    ['line-wrapped', 'aGVs\nbG8='],
  ])('bad base64 (%s) is described, not passed', (_name, data) => {
    expect(one([{ type: 'image', data, mimeType: 'image/png' }])).toEqual([text('[image: the data is not base64]')]);
  });

  it('image data that is not a string is described as not base64', () => {
    expect(one([{ type: 'image', data: 12345, mimeType: 'image/png' }])).toEqual([text('[image: the data is not base64]')]);
    expect(one([{ type: 'image', mimeType: 'image/png' }])).toEqual([text('[image: the data is not base64]')]);
  });

  it('an image type a model cannot take is described with its size', () => {
    expect(one([{ type: 'image', data: HELLO, mimeType: 'image/bmp' }])).toEqual([
      text(`[image of type image/bmp (5 bytes): not a type a model takes (${TYPES})]`),
    ]);
    expect(one([{ type: 'image', data: 'aGk=', mimeType: 'image/svg+xml' }])).toEqual([
      text(`[image of type image/svg+xml (2 bytes): not a type a model takes (${TYPES})]`),
    ]);
  });

  it('an image without a media type is of unknown type', () => {
    expect(one([{ type: 'image', data: 'aA==' }])).toEqual([text(`[image of type unknown (1 bytes): not a type a model takes (${TYPES})]`)]);
  });

  it('an image at the base64 limit passes; one character more is described instead', () => {
    expect(MAX_IMAGE_BASE64_CHARS).toBe(5 * 1024 * 1024);
    const atLimit = 'A'.repeat(MAX_IMAGE_BASE64_CHARS);
    const [ok] = one([{ type: 'image', data: atLimit, mimeType: 'image/jpeg' }]);
    expect(ok).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: atLimit } });
    const over = 'A'.repeat(MAX_IMAGE_BASE64_CHARS + 4);
    expect(one([{ type: 'image', data: over, mimeType: 'image/jpeg' }])).toEqual([
      text(`[image (image/jpeg, ${((MAX_IMAGE_BASE64_CHARS + 4) * 3) / 4} bytes): larger than the 5 MiB of base64 passed to a model]`),
    ]);
  });
});

describe('toolResultBlocks: audio', () => {
  it('audio is described with its type and size', () => {
    expect(one([{ type: 'audio', data: HELLO, mimeType: 'audio/wav' }])).toEqual([text('[audio of type audio/wav, 5 bytes: not passed to the model]')]);
  });

  it('audio without a type or data', () => {
    expect(one([{ type: 'audio' }])).toEqual([text('[audio, 0 bytes: not passed to the model]')]);
  });
});

describe('embedded resources', () => {
  it('a text resource with and without a media type', () => {
    expect(one([{ type: 'resource', resource: { uri: 'file:///a.md', mimeType: 'text/markdown', text: '# A' } }])).toEqual([
      text('Resource file:///a.md (text/markdown):\n# A'),
    ]);
    expect(one([{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'plain' } }])).toEqual([text('Resource file:///a.txt:\nplain')]);
  });

  it('an empty text resource is still a text resource', () => {
    expect(resourceBlocks({ uri: 'mem://e', text: '' })).toEqual([text('Resource mem://e:\n')]);
  });

  it('an image blob becomes a label and an image', () => {
    expect(one([{ type: 'resource', resource: { uri: 'file:///p.png', mimeType: 'image/png', blob: PNG } }])).toEqual([
      text('Resource file:///p.png (image/png):'),
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ]);
  });

  it('an image blob with an uppercase media type is still an image (lowercased)', () => {
    expect(resourceBlocks({ uri: 'u', mimeType: 'Image/WebP', blob: PNG })).toEqual([
      text('Resource u (Image/WebP):'),
      { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: PNG } },
    ]);
  });

  it('an image blob that is not base64 keeps the label and is described', () => {
    expect(resourceBlocks({ uri: 'u', mimeType: 'image/png', blob: '***' })).toEqual([
      text('Resource u (image/png):'),
      text('[image resource u: the data is not base64]'),
    ]);
  });

  it('an oversized image blob is described', () => {
    const big = 'A'.repeat(MAX_IMAGE_BASE64_CHARS + 4);
    expect(resourceBlocks({ uri: 'u', mimeType: 'image/gif', blob: big })[1]).toEqual(
      text(`[image resource u (image/gif, ${((MAX_IMAGE_BASE64_CHARS + 4) * 3) / 4} bytes): larger than the 5 MiB of base64 passed to a model]`),
    );
  });

  it('a blob of a type a model cannot take (not an image, or an image type it does not take) is described, not shown', () => {
    expect(one([{ type: 'resource', resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: HELLO } }])).toEqual([
      text('[resource file:///a.pdf: binary data of type application/pdf, 5 bytes, not shown]'),
    ]);
    expect(resourceBlocks({ uri: 'file:///b.bmp', mimeType: 'image/bmp', blob: 'aGk=' })).toEqual([
      text('[resource file:///b.bmp: binary data of type image/bmp, 2 bytes, not shown]'),
    ]);
    expect(resourceBlocks({ uri: 'file:///c', blob: 'aA==' })).toEqual([text('[resource file:///c: binary data, 1 bytes, not shown]')]);
  });

  it('text wins over a blob when both are present', () => {
    expect(resourceBlocks({ uri: 'u', text: 't', blob: PNG, mimeType: 'image/png' })).toEqual([text('Resource u (image/png):\nt')]);
  });

  it('a resource with no contents, no uri, or no resource at all', () => {
    expect(resourceBlocks({ uri: 'mem://x' })).toEqual([text('[resource mem://x: no contents]')]);
    expect(resourceBlocks({ text: 'body', uri: 7 })).toEqual([text('Resource (no uri):\nbody')]);
    expect(resourceBlocks({ text: 'body', mimeType: 5 })).toEqual([text('Resource (no uri):\nbody')]);
    expect(one([{ type: 'resource' }])).toEqual([text('[resource (no uri): no contents]')]);
  });
});

describe('resource_link and unknown blocks', () => {
  it('a resource link with a name and a type', () => {
    expect(one([{ type: 'resource_link', uri: 'file:///r.csv', name: 'r.csv', mimeType: 'text/csv' }])).toEqual([
      text('Resource link: file:///r.csv (r.csv, text/csv) — read it with ReadMcpResource'),
    ]);
  });

  it('a resource link with a name only', () => {
    expect(one([{ type: 'resource_link', uri: 'file:///r', name: 'r' }])).toEqual([text('Resource link: file:///r (r) — read it with ReadMcpResource')]);
  });

  it('a resource link without a name', () => {
    expect(one([{ type: 'resource_link', uri: 'file:///r' }])).toEqual([text('Resource link: file:///r — read it with ReadMcpResource')]);
  });

  it('an unknown block type is described with its type quoted', () => {
    expect(one([{ type: 'video', data: 'x' }])).toEqual([text('[a content block of type "video" this server does not know]')]);
    expect(one([{ type: 'a"b' }])).toEqual([text('[a content block of type "a\\"b" this server does not know]')]);
    expect(one([{ nottype: 1 }])).toEqual([text('[a content block of type "undefined" this server does not know]')]);
  });

  it('entries that are not objects are skipped', () => {
    expect(one([null, 'text', 42, text('kept')])).toEqual([text('kept')]);
  });
});

describe('toolResultBlocks: whole results', () => {
  it('a mix of blocks keeps its order', () => {
    const out = one([text('a'), { type: 'image', data: PNG, mimeType: 'image/png' }, { type: 'audio' }, { type: 'resource', resource: { uri: 'u', mimeType: 'image/png', blob: PNG } }, text('z')]);
    expect(out.map((b) => b.type)).toEqual(['text', 'image', 'text', 'text', 'image', 'text']);
    expect(out[0]).toEqual(text('a'));
    expect(out[5]).toEqual(text('z'));
  });

  it('structuredContent alone is shown as pretty JSON', () => {
    const structuredContent = { temperature: 21.5, unit: 'C', tags: ['a'] };
    expect(toolResultBlocks({ structuredContent })).toEqual({ content: [text(JSON.stringify(structuredContent, null, 2))], isError: false });
    expect(toolResultBlocks({ content: [], structuredContent: { n: 1 } }).content).toEqual([text('{\n  "n": 1\n}')]);
    expect(toolResultBlocks({ content: [null], structuredContent: null }).content).toEqual([text('null')]);
  });

  it('structuredContent is not repeated when there are content blocks', () => {
    expect(toolResultBlocks({ content: [text('shown')], structuredContent: { hidden: true } }).content).toEqual([text('shown')]);
  });

  it('nothing at all is "(no output)"', () => {
    expect(toolResultBlocks({})).toEqual({ content: [text('(no output)')], isError: false });
    expect(toolResultBlocks({ content: [] }).content).toEqual([text('(no output)')]);
    expect(toolResultBlocks({ content: 'not an array' }).content).toEqual([text('(no output)')]);
    expect(toolResultBlocks({ content: [7, null] }).content).toEqual([text('(no output)')]);
  });

  it('isError is true only for a literal true', () => {
    expect(toolResultBlocks({ content: [text('boom')], isError: true })).toEqual({ content: [text('boom')], isError: true });
    expect(toolResultBlocks({ isError: true })).toEqual({ content: [text('(no output)')], isError: true });
    expect(toolResultBlocks({ content: [text('x')], isError: 'true' }).isError).toBe(false);
    expect(toolResultBlocks({ content: [text('x')], isError: 1 }).isError).toBe(false);
    expect(toolResultBlocks({ content: [text('x')], isError: false }).isError).toBe(false);
  });
});

describe('content: data a model could not take', () => {
  it('image data of an impossible base64 length (or none) is described, not passed on', () => {
    for (const data of ['A', '', 'AAAAA']) {
      const { content } = toolResultBlocks({ content: [{ type: 'image', data, mimeType: 'image/png' }] });
      expect(content).toEqual([{ type: 'text', text: '[image: the data is not base64]' }]);
    }
  });

  it('a resource link without a uri says so; its media type shows without a name too', () => {
    expect(toolResultBlocks({ content: [{ type: 'resource_link' }] }).content).toEqual([{ type: 'text', text: '[a resource link without a uri]' }]);
    expect(toolResultBlocks({ content: [{ type: 'resource_link', uri: 'x://a', mimeType: 'text/plain' }] }).content).toEqual([
      { type: 'text', text: 'Resource link: x://a (text/plain) — read it with ReadMcpResource' },
    ]);
  });
});
