import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { ContentError, decodeText, htmlToText, pdfPages } from '../src';

async function pdf(pages: string[], withText = true): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage();
    if (withText) page.drawText(text, { x: 50, y: 700, size: 12, font });
    else page.drawRectangle({ x: 50, y: 600, width: 200, height: 100 });
  }
  return doc.save();
}

const failure = async (run: () => unknown) => {
  try {
    await run();
  } catch (error) {
    return error as ContentError;
  }
  throw new Error('expected a ContentError');
};

describe('decodeText', () => {
  it('answers UTF-8 text without its byte-order mark', () => {
    expect(decodeText(Buffer.from('\uFEFFCafé au lait'), 'a.md')).toBe('Café au lait');
  });

  it('refuses bytes that are not UTF-8 as a content type mismatch', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00]);
    const error = await failure(() => decodeText(png, 'image.md'));
    expect(error).toBeInstanceOf(ContentError);
    expect(error.errorType).toBe('ContentTypeMismatch');
    expect(error.message).toContain('image.md');
  });

  it('refuses valid UTF-8 that holds NUL bytes', async () => {
    const error = await failure(() => decodeText(Buffer.from('abc\u0000def'), 'blob.txt'));
    expect(error.errorType).toBe('ContentTypeMismatch');
  });
});

describe('htmlToText', () => {
  it('keeps visible text and drops scripts, styles and markup', () => {
    const text = htmlToText(
      '<html><head><style>p{color:red}</style><script>alert("x")</script></head>' +
        '<body><h1>Radium</h1><p>Marie <b>Curie</b> found it.</p><script>var secret = 1;</script><p>Second.</p></body></html>',
    );
    expect(text).toContain('Radium');
    expect(text).toContain('Marie Curie found it.');
    expect(text).toContain('Second.');
    expect(text).not.toMatch(/alert|secret|color/);
    expect(text).toMatch(/found it\.\n\nSecond\./);
  });
});

describe('pdfPages', () => {
  it('answers the text layer one string a page', async () => {
    const pages = await pdfPages(await pdf(['First page text', 'Second page text']), 'doc.pdf');
    expect(pages).toEqual(['First page text', 'Second page text']);
  });

  it('refuses a file without a PDF header', async () => {
    const error = await failure(() => pdfPages(Buffer.from('# not a pdf'), 'notes.pdf'));
    expect(error.errorType).toBe('CorruptPdf');
    expect(error.message).toContain('notes.pdf');
  });

  it('refuses a PDF whose structure is broken', async () => {
    const bytes = Buffer.from(await pdf(['text']));
    const broken = Buffer.concat([bytes.subarray(0, 20), Buffer.alloc(200, 0x41)]);
    const error = await failure(() => pdfPages(broken, 'broken.pdf'));
    expect(error.errorType).toBe('CorruptPdf');
  });

  it('says a PDF without a text layer has none instead of answering nothing', async () => {
    const error = await failure(async () => pdfPages(await pdf(['', ''], false), 'scan.pdf'));
    expect(error.errorType).toBe('NoTextLayer');
    expect(error.message).toContain('scan.pdf');
  });
});
