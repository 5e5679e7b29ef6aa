/**
 * The instant provider of rag-data.ts in a process of its own, as a real provider runs apart from the service:
 * answering in the service's process took its event loop ~0.4 ms a search (JSON of 1,536 numbers) and counted
 * in its CPU. `node --import tsx bench/instant-provider.ts <port> <vectors.json>` answers each text with its
 * vector from the file (`{ text: number[] }`), others with `textVector`, and prints `ready <port>` once listening
 * (port 0: one the system chose).
 */
import fs from 'node:fs'
import { startInstantProvider, textVector } from './rag-data.ts'

const [port, file] = process.argv.slice(2)
const vectors = new Map(
  Object.entries(JSON.parse(fs.readFileSync(file!, 'utf8')) as Record<string, number[]>),
)
const { url } = await startInstantProvider((text) => vectors.get(text) ?? textVector(text), Number(port))
process.stdout.write(`ready ${new URL(url).port}\n`)
