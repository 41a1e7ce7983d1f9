/** The one answer text of an agent's result, which chat answers, session pages and jobs' posts share. */
import { describe, expect, it } from 'vitest';
import { answerText, sessionPage } from '../src/index';

describe('answerText', () => {
  it("answers the agent's own answer first, then its hits, never text of its own", () => {
    expect(answerText({ summary: 'Keys rotate every ninety days.', sources: [] })).toBe(
      'Keys rotate every ninety days.',
    );
    expect(answerText({ orchestration_result: { final_answer: 'Done.' }, answer: 'other' })).toBe('Done.');
    expect(
      answerText({
        report: {
          title: 'Keys',
          sections: [{ heading: 'Rotation', body: 'Every ninety days.', citations: [] }],
        },
      }),
    ).toBe('# Keys\n\n## Rotation\n\nEvery ninety days.');
    const hits = {
      results: [
        { document_id: 'd1', source_doc_id: 'keys.md', text: 'Rotate keys every ninety days.', score: 1 },
        { document_id: 'd2', source_doc_id: 'vault.md', text: 'Store them in the vault.', score: 0.5 },
      ],
    };
    expect(answerText(hits)).toBe(
      'Found 2 results:\n1. [keys.md] Rotate keys every ninety days.\n2. [vault.md] Store them in the vault.',
    );
    expect(answerText({ results: [] })).toBe('No matching content was found.');
    // The gateway answers with its routed agent's result.
    expect(answerText({ classification: 'simple', result: hits })).toContain('[keys.md]');
    expect(
      answerText({
        files: [{ path: 'a.py', language: 'python', content: 'print(1)' }],
        explanation: 'A script.',
      }),
    ).toBe('A script.\n\na.py:\n```python\nprint(1)\n```');
  });

  it('answers that nothing was found when a summary or report agent found no source', () => {
    // The summarizer and the report agent over an empty tenant: no summary, no sections, no sources.
    expect(answerText({ summary: '', method: 'extractive', sources: [] })).toBe(
      'No matching content was found.',
    );
    expect(
      answerText({
        report: { title: 'Report: key policy', sections: [] },
        method: 'extractive',
        sources: [],
      }),
    ).toBe('No matching content was found.');
    // The gateway routing to one of them answers the same.
    expect(answerText({ classification: 'simple', result: { summary: '', sources: [] } })).toBe(
      'No matching content was found.',
    );
  });

  it('renders a session page from an empty result as the plain fact, never a JSON block', () => {
    for (const response of [
      { results: [], count: 0 },
      { classification: 'simple', result: { results: [] } },
    ]) {
      expect(answerText(response)).toBe('No matching content was found.');
      const page = sessionPage({
        slug: 'session_20260101000000_abcdef01',
        query: 'rotate keys',
        response,
        agentName: 'search_agent',
        entities: [],
        now: Date.UTC(2026, 0, 1),
      });
      expect(page.content).toContain('## Answer\n\nNo matching content was found.');
      expect(page.content).not.toContain('```');
    }
  });

  it("puts a report's headings below the session page's Answer, code blocks untouched", () => {
    const page = sessionPage({
      slug: 'session_20260101000000_abcdef02',
      query: 'key policy',
      response: {
        report: { title: 'Keys', sections: [{ heading: 'Rotation', body: 'Every ninety days.' }] },
      },
      agentName: 'detailed_report_agent',
      entities: [],
      now: Date.UTC(2026, 0, 1),
    });
    expect(page.content).toContain('## Answer\n\n### Keys\n\n#### Rotation\n\nEvery ninety days.');
    expect(page.content.match(/^# /gm)).toHaveLength(1);
    const code = sessionPage({
      slug: 'session_20260101000000_abcdef03',
      query: 'script',
      response: { files: [{ path: 'a.py', language: 'python', content: '# rotate\nrun()' }] },
      agentName: 'coding_agent',
      entities: [],
      now: Date.UTC(2026, 0, 1),
    });
    expect(code.content).toContain('```python\n# rotate\nrun()\n```');
  });

  it('answers a plain text or explanation of an agent that has no other answer', () => {
    expect(answerText({ text: 'Scanned text.', confidence: 0.9 })).toBe('Scanned text.');
    expect(answerText({ explanation: 'Nothing to change.', files: [] })).toBe('Nothing to change.');
  });
});
