/** Text analysis without a model: language by stop words, keywords by frequency, entities, sentences. */
import type { Agents } from '@tessera/api';
import type { Agent } from '../agent';
import { detectLanguage, keywords, sentences, words } from '../text';
import { extractEntities } from './entities';

/** Average silent reading speed, words a minute. */
const WORDS_PER_MINUTE = 238;

export const textAnalysisAgent: Agent = {
  name: 'text_analysis_agent',
  async run(deps, run): Promise<Agents.TextAnalysisResult> {
    const text = run.context.text ?? run.query;
    await run.phase('analyze');
    const tokens = words(text);
    const { entities } = await extractEntities(deps, text);
    return {
      language: detectLanguage(tokens),
      keywords: keywords(tokens),
      entities,
      sentences: sentences(text).length,
      words: tokens.length,
      reading_time_s: Math.round((tokens.length / WORDS_PER_MINUTE) * 600) / 10,
      method: 'extractive',
    };
  },
};
