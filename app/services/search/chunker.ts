import crypto from 'node:crypto'
import type { TermContent } from '#app/services/terms/content.server.ts'

/**
 * How sources become chunks (decision 016). Text is cut into windows of `size` characters (UTF-16 code
 * units, the unit of `startOffset`/`endOffset`) overlapping by `overlap`; a cut moves back to the last line
 * break or space in the window's last fifth so words stay whole, and never splits a surrogate pair.
 */

export interface TextPiece {
  start: number
  end: number
  text: string
}

export function splitText(text: string, size: number, overlap: number): TextPiece[] {
  const out: TextPiece[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + size)
    if (end < text.length) {
      const floor = start + Math.floor(size * 0.8)
      const window = text.slice(floor, end)
      const cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '))
      if (cut > 0) end = floor + cut + 1
      if (isLowSurrogate(text.charCodeAt(end))) end--
    }
    const piece = text.slice(start, end)
    if (piece.trim()) out.push({ start, end, text: piece })
    if (end >= text.length) break
    let next = Math.max(end - overlap, start + 1)
    if (isLowSurrogate(text.charCodeAt(next))) next++
    start = next
  }
  return out
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

export interface ChunkDraft {
  sourceField: string | null
  startOffset: number | null
  endOffset: number | null
  /** What search shows. */
  content: string
  /** What is embedded: the content with its source's name or title for context. */
  embedText: string
  /** SHA-256 of `embedText`: equal text in the same embedding space reuses its vector. */
  contentHash: string
}

export function hashText(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex')
}

function draft(
  content: string,
  embedText: string,
  sourceField: string | null,
  offsets: [number, number] | null,
): ChunkDraft {
  return {
    sourceField,
    startOffset: offsets?.[0] ?? null,
    endOffset: offsets?.[1] ?? null,
    content,
    embedText,
    contentHash: hashText(embedText),
  }
}

/**
 * A term's chunks: its names and classification in one `name` chunk (primary name, full name, English and
 * Korean names, notations, domains, categories, tags, status), then its `definition` and `body`, each split
 * by size and overlap and embedded with the term's name in front.
 */
export function termChunks(c: TermContent, size: number, overlap: number): ChunkDraft[] {
  const lines = [
    `${c.name}`,
    c.fullName && `Full name: ${c.fullName}`,
    c.nameEn && `English: ${c.nameEn}`,
    c.nameKo && `Korean: ${c.nameKo}`,
    c.notations.length > 0 && `Notations: ${c.notations.map((n) => n.text).join(', ')}`,
    c.domains.length > 0 && `Domain: ${c.domains.join(', ')}`,
    c.categories.length > 0 && `Business category: ${c.categories.join(', ')}`,
    c.tags.length > 0 && `Tags: ${c.tags.join(', ')}`,
    `Status: ${c.status}`,
  ].filter((l): l is string => Boolean(l))
  const out: ChunkDraft[] = []
  for (const piece of splitText(lines.join('\n'), size, overlap))
    out.push(draft(piece.text, piece.text, 'name', null))
  for (const field of ['definition', 'body'] as const) {
    for (const piece of splitText(c[field] ?? '', size, overlap)) {
      out.push(draft(piece.text, `${c.name}\n${piece.text}`, field, null))
    }
  }
  return out
}

/** A wiki page's or meeting's chunks, with offsets into the original text and the title for context. */
export function documentChunks(title: string, text: string, size: number, overlap: number): ChunkDraft[] {
  return splitText(text, size, overlap).map((piece) =>
    draft(piece.text, `${title}\n${piece.text}`, null, [piece.start, piece.end]),
  )
}
