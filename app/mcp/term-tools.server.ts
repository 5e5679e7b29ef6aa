import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { AppError } from '#app/lib/errors.server.ts'
import { LookupSchema } from '#app/schemas/terms.ts'
import { retrievalReadiness } from '#app/services/search/retrieval.server.ts'
import { searchTerms } from '#app/services/search/search.server.ts'
import { getTerm, listTerms, type TermDto } from '#app/services/terms/read.server.ts'
import { lookupTerms } from '#app/services/validation/lookup.server.ts'
import { RAG_LIMITS } from '#domain/rag.ts'
import { termPageUrl, type McpCaller } from './caller.server.ts'
import { capList, clip, RESULT_LIMITS, runTool } from './results.server.ts'

/**
 * The glossary's read tools: `lookup_terms` (POST /terms/lookup), `get_term` (GET /terms/{idOrSlug}, and by
 * name through the lookup), `search_glossary` (GET /terms?q= and POST /rag/search). All need the `read` scope,
 * as their endpoints do.
 */
export function registerTermTools(server: McpServer, caller: McpCaller): void {
  server.registerTool(
    'lookup_terms',
    {
      title: 'Look up notations',
      description:
        'Looks up notations (words or phrases taken from a text, up to 500) in the glossary, as POST /api/v1/terms/lookup does: for each text that is a name or notation of a term, the term, its kind of use (preferred, admitted, deprecated), the finding and the preferred form to write. Texts are compared after normalization (width, letter case, spacing). Only texts that were found are listed. To check running text, use validate_text.',
      inputSchema: { texts: LookupSchema.shape.texts },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(caller, { name: 'lookup_terms', scope: 'read' }, args, async () => {
        const { results } = await lookupTerms({ texts: args.texts })
        const found = results.filter((r) => r.found)
        let budget: number = RESULT_LIMITS.matches
        let omitted = 0
        const items = []
        for (const result of found) {
          if (budget <= 0) {
            omitted += result.matches.length
            continue
          }
          const shown = result.matches.slice(0, budget)
          budget -= shown.length
          omitted += result.matches.length - shown.length
          items.push({
            text: result.text,
            matches: shown.map((m) => ({
              term: { slug: m.term.slug, name: m.term.name, status: m.term.status },
              notation: m.notation,
              kind: m.kind,
              finding: m.finding,
              preferred: m.preferred,
              url: termPageUrl(caller, m.term.slug),
            })),
          })
        }
        return {
          asked: results.length,
          found: found.length,
          notFound: results.filter((r) => !r.found).map((r) => r.text),
          results: items,
          ...(omitted ? { omittedMatches: omitted, truncated: true } : {}),
        }
      }),
  )

  server.registerTool(
    'get_term',
    {
      title: 'Get a term',
      description:
        'One glossary term by its name (or any notation), its slug or its id: the definition, notations with their kinds (preferred, admitted, deprecated), status, revision and the URL of its page. When a name belongs to several terms, the first is answered and the others are listed.',
      inputSchema: {
        term: z.string().trim().min(1).max(200).describe('A name or notation, a slug, or a term id (UUID).'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(caller, { name: 'get_term', scope: 'read' }, args, () => termByAnyKey(caller, args.term)),
  )

  server.registerTool(
    'search_glossary',
    {
      title: 'Search the glossary',
      description:
        'Searches glossary terms: by name and notation (substring, ignoring case and width) always, and by meaning when the administrator has switched search by meaning on. The answer says whether search by meaning ran.',
      inputSchema: {
        query: z.string().trim().min(1).max(RAG_LIMITS.queryMax).describe('What to look for.'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(RESULT_LIMITS.items)
          .optional()
          .describe(`Items of each kind of search, 1 to ${RESULT_LIMITS.items} (default 10).`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(caller, { name: 'search_glossary', scope: 'read' }, args, () =>
        searchGlossary(caller, args.query, args.limit ?? 10),
      ),
  )
}

/** A term as `get_term` and the term resource show it: bounded texts and its page's URL. */
export function termView(caller: McpCaller, term: TermDto) {
  return {
    id: term.id,
    slug: term.slug,
    name: term.name,
    fullName: term.fullName,
    nameEn: term.nameEn,
    nameKo: term.nameKo,
    status: term.status,
    definition: clip(term.definition),
    notations: term.notations.map((n) => ({ text: n.text, kind: n.kind, lang: n.lang })),
    domains: term.domains,
    categories: term.categories,
    tags: term.tags,
    revision: term.revision,
    mergedInto: term.mergedInto,
    updatedAt: term.updatedAt,
    url: termPageUrl(caller, term.slug),
    body: clip(term.body),
  }
}

/**
 * The term an agent named: its id or slug (old slugs too) as GET /terms/{idOrSlug} resolves them, else a name
 * or notation as the lookup finds it.
 */
async function termByAnyKey(caller: McpCaller, key: string) {
  try {
    return termView(caller, await getTerm({ idOrSlug: key }))
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'not_found') throw error
  }
  const [result] = (await lookupTerms({ texts: [key] })).results
  const ids = [...new Set(result?.matches.map((m) => m.term.id) ?? [])]
  if (!ids.length) throw new AppError('not_found', `No term has the id, slug, name or notation "${key}".`)
  const term = termView(caller, await getTerm({ idOrSlug: ids[0]! }))
  const others = result!.matches.filter((m) => m.term.id !== ids[0])
  return others.length
    ? {
        ...term,
        alsoNamedSo: capList(
          [...new Map(others.map((m) => [m.term.id, m.term])).values()].map((t) => ({
            slug: t.slug,
            name: t.name,
            status: t.status,
          })),
          RESULT_LIMITS.items,
        ).items,
      }
    : term
}

async function searchGlossary(caller: McpCaller, query: string, limit: number) {
  // The name search of GET /terms takes at most 200 characters; a longer query is a question for the meaning.
  const byName = await listTerms({
    q: Array.from(query).slice(0, 200).join(''),
    domain: [],
    category: [],
    tag: [],
    page: 1,
    pageSize: limit,
  })
  const nameItems = byName.items.map((t) => ({
    slug: t.slug,
    name: t.name,
    status: t.status,
    definition: clip(t.definition, RESULT_LIMITS.snippetChars),
    url: termPageUrl(caller, t.slug),
  }))
  const readiness = await retrievalReadiness()
  if (!readiness.ready) {
    return {
      query,
      meaningSearch: 'off',
      note: `Search by meaning is not available (${readiness.message}); these are name and notation matches only.`,
      byName: { total: byName.total, items: nameItems },
    }
  }
  let found
  try {
    found = await searchTerms({ query, topK: limit }, readiness)
  } catch (error) {
    // The provider failed for now (502 on POST /rag/search): the name matches still help.
    if (!(error instanceof AppError) || error.code !== 'rag_provider_error') throw error
    return {
      query,
      meaningSearch: 'failed',
      note: `Search by meaning failed (${error.message}); these are name and notation matches only.`,
      byName: { total: byName.total, items: nameItems },
    }
  }
  return {
    query,
    meaningSearch: 'on',
    byName: { total: byName.total, items: nameItems },
    byMeaning: {
      reranked: found.reranked,
      items: found.items.map((item) => ({
        slug: item.slug,
        name: item.title,
        status: item.status,
        revision: item.revision,
        score: item.score,
        ...(item.rerankScore === undefined ? {} : { rerankScore: item.rerankScore }),
        passage: clip(item.content, RESULT_LIMITS.snippetChars),
        url: termPageUrl(caller, item.slug),
      })),
    },
  }
}
