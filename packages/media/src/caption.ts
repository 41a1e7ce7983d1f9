/** Image descriptions from an OpenAI-compatible vision chat endpoint: the image goes as a data URL. */
import { InferenceCallError } from './errors';
import { callFailure, type EndpointOptions, openAIClient, shorten } from './openai-client';

export interface Captioner {
  readonly name: string;
  /** One or two sentences describing the image. */
  caption(image: Uint8Array, mime: string): Promise<string>;
}

export const CAPTION_PROMPT =
  'Describe this image in one or two plain sentences: the people (by appearance, never guessing names), objects, ' +
  'setting and any activity. Do not transcribe text in it.';

export class OpenAICaptioner implements Captioner {
  readonly name: string;
  private readonly client;

  constructor(private readonly options: EndpointOptions & { prompt?: string; maxTokens?: number }) {
    this.name = `caption:${options.model}`;
    this.client = openAIClient(options);
  }

  async caption(image: Uint8Array, mime: string): Promise<string> {
    const url = `data:${mime};base64,${Buffer.from(image).toString('base64')}`;
    let content: string | null | undefined;
    try {
      const completion = await this.client.chat.completions.create({
        model: this.options.model,
        temperature: 0,
        max_tokens: this.options.maxTokens ?? 120,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: this.options.prompt ?? CAPTION_PROMPT },
              { type: 'image_url', image_url: { url } },
            ],
          },
        ],
      });
      content = completion.choices?.[0]?.message?.content;
    } catch (error) {
      throw new InferenceCallError(
        'captioning',
        this.options.baseURL,
        callFailure(error, this.options),
        error,
      );
    }
    if (typeof content !== 'string' || !content.trim()) {
      throw new InferenceCallError('captioning', this.options.baseURL, 'answered without a caption');
    }
    return shorten(content.trim().replace(/\s+/g, ' '), 1000);
  }
}
