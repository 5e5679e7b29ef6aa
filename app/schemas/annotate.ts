import { z } from 'zod'
import { FINDING_VALUES, GlossaryStateSchema, MARKUP_VALUES, VALIDATE_LIMITS } from './validation.ts'

/** `POST /annotate` (issue 32): a text in, its term uses out as spans and as HTML with term links. */
export const AnnotateSchema = z
  .object({
    text: z.string().max(VALIDATE_LIMITS.textChars),
    markup: z.enum(MARKUP_VALUES).default('text').meta({
      description:
        '`markdown`: code, URLs, link destinations and HTML are not prose (no spans there), and `html` is the Markdown rendered and sanitized, as wiki pages are; `text`: `html` is the text escaped, its line breaks kept (show it with `white-space: pre-wrap`).',
    }),
  })
  .strict()
  .meta({ example: { text: 'Calls go through the API GW.', markup: 'text' } })

export const TermSpanSchema = z.object({
  start: z.number().int().meta({ description: 'Offset of the first UTF-16 code unit in `text`.' }),
  end: z.number().int().meta({ description: 'Offset after the last UTF-16 code unit (exclusive).' }),
  text: z.string().meta({ description: 'The use as it occurs in the input.' }),
  notation: z.string().meta({ description: 'The glossary notation it is a use of.' }),
  term: z.object({ id: z.uuid(), slug: z.string(), name: z.string(), status: z.string() }),
  kind: z.enum(['preferred', 'admitted', 'deprecated']),
  finding: z.enum(FINDING_VALUES).meta({ description: 'As `POST /validate` reports it.' }),
  preferred: z.string().nullable().meta({ description: 'What to write instead of a deprecated notation.' }),
  definition: z.string().meta({ description: "The term's definition, cut at 280 characters." }),
  url: z.string().meta({ description: "The term's page, relative to this service." }),
})

export const AnnotateResponseSchema = z.object({
  spans: z.array(TermSpanSchema).meta({
    description:
      'Every use of a term in the prose, in order, not overlapping (the longest use where two overlap). Where one notation names several terms, the first is given (and a deprecated notation before a correct one).',
  }),
  html: z.string().meta({
    description:
      'The text as HTML: a preferred or admitted use is `<span class="term"><a class="term-link" href="/terms/…" aria-describedby="term-def-N">…</a><span class="term-def" role="tooltip" id="term-def-N">definition</span></span>`; a deprecated notation is a `<mark class="term-deprecated">` whose tooltip names the form to write. Never inside a link, code, an image or a heading. Links are relative to this service.',
  }),
  glossary: GlossaryStateSchema,
})
