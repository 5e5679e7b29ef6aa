/** Readers of the glossary's export files for tests: a strict XML tree (TBX) and a zip's entries (Vale). */
import { SaxesParser, type SaxesTagNS } from 'saxes'
import yauzl from 'yauzl'

/** An element of a parsed XML document: local name, namespace, attributes, child elements and its text. */
export interface El {
  name: string
  ns: string
  attrs: Record<string, string>
  children: El[]
  text: string
}

/** A strict, namespace-aware parse into a small element tree (saxes throws on any well-formedness error). */
export function parseXml(xml: string): El {
  const parser = new SaxesParser({ xmlns: true })
  const stack: El[] = []
  let root: El | undefined
  parser.on('opentag', (tag: SaxesTagNS) => {
    const el: El = {
      name: tag.local,
      ns: tag.uri,
      attrs: Object.fromEntries(Object.values(tag.attributes).map((a) => [a.name, a.value])),
      children: [],
      text: '',
    }
    if (stack.length) stack.at(-1)!.children.push(el)
    else root = el
    stack.push(el)
  })
  parser.on('text', (text) => {
    if (stack.length) stack.at(-1)!.text += text
  })
  parser.on('closetag', () => void stack.pop())
  parser.write(xml).close()
  return root!
}

/** The child elements of `el` called `name`. */
export const kids = (el: El, name: string): El[] => el.children.filter((c) => c.name === name)

/** The entries of a zip as name → text. */
export async function unzip(bytes: Buffer): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(bytes)
  const out = new Map<string, string>()
  for await (const entry of zip.eachEntry()) {
    const stream = await zip.openReadStreamPromise(entry)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'))
  }
  return out
}
