import { describe, expect, it } from 'vitest'
import {
  MAX_JSON_BYTES_PER_UNIT,
  MAX_JSON_NUMBER_BYTES,
  writeAscii,
  writeJsonString,
  writeNumber,
} from './json-bytes.ts'

const encode = (text: string): string => {
  const out = Buffer.alloc(MAX_JSON_BYTES_PER_UNIT * text.length + 2)
  return out.subarray(0, writeJsonString(out, 0, text)).toString('utf8')
}

/** A seeded source of code units from every class the writer tells apart. */
function randomText(seed: number, length: number): string {
  let state = seed
  const next = () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32
  const classes = [
    () => 0x20 + Math.floor(next() * 0x5f), // printable ASCII (with " and \)
    () => Math.floor(next() * 0x20), // control characters
    () => [0x22, 0x5c, 0x7f][Math.floor(next() * 3)]!,
    () => 0x80 + Math.floor(next() * 0x780), // two bytes
    () => 0xac00 + Math.floor(next() * 11172), // Hangul, three bytes
    () => [0x2028, 0x2029, 0xfeff, 0xfffc, 0xffff][Math.floor(next() * 5)]!,
    () => 0xd800 + Math.floor(next() * 0x800), // any surrogate: pairs and lone halves
  ]
  let text = ''
  for (let i = 0; i < length; i++)
    text += String.fromCharCode(classes[Math.floor(next() * classes.length)]!())
  return text
}

describe('writeJsonString', () => {
  it.each([
    ['', 'empty'],
    ['GitHub', 'ASCII'],
    ['say "hi" \\ then\n\r\t\b\f\u0000\u001f\u007f', 'escapes and control characters'],
    ['용어집 API 게이트웨이', 'Korean'],
    ['é ß ﬁ Ｇ', 'two- and three-byte characters'],
    ['😀 𝔸', 'astral characters (surrogate pairs)'],
    ['\ud800 x \udc00 \udc00\ud800', 'lone and reversed surrogates'],
    ['\u2028\u2029', 'line and paragraph separators (left as they are)'],
  ])('writes %j as JSON.stringify does (%s)', (text) => {
    expect(encode(text)).toBe(JSON.stringify(text))
  })

  it('agrees with JSON.stringify on 2,000 random texts of every kind of code unit', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const text = randomText(seed, seed % 64)
      expect(encode(text)).toBe(JSON.stringify(text))
    }
  })

  it('stays within MAX_JSON_BYTES_PER_UNIT bytes a code unit', () => {
    for (const text of ['\u0001'.repeat(50), '\ud800'.repeat(50), '가'.repeat(50), '😀'.repeat(25)]) {
      const out = Buffer.alloc(MAX_JSON_BYTES_PER_UNIT * text.length + 2)
      expect(writeJsonString(out, 0, text)).toBeLessThanOrEqual(out.length)
    }
  })

  it('writes at an offset and returns the offset after the string', () => {
    const out = Buffer.alloc(16, 0x2e)
    const end = writeAscii(out, 0, Buffer.from('[1,'))
    expect(writeJsonString(out, end, 'a"')).toBe(end + 5)
    expect(out.toString('latin1')).toBe('[1,"a\\""........')
  })
})

describe('writeNumber', () => {
  const number = (n: number): string => {
    const out = Buffer.alloc(MAX_JSON_NUMBER_BYTES)
    return out.subarray(0, writeNumber(out, 0, n)).toString('latin1')
  }

  it('writes what JSON.stringify writes, for offsets and every other kind of number', () => {
    const numbers = [0, -0, 1, 9, 10, 99, 100, 12_345, -7, -1_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER]
    numbers.push(-Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, 0.5, -1.25e-7, NaN, Infinity, -Number.MAX_VALUE)
    // Every length of integer up to 16 digits, the digits spread by a fixed multiplicative hash.
    for (let i = 0; i < 1000; i++)
      numbers.push(Math.floor((((i * 2654435761) % 2 ** 32) / 2 ** 32) * 10 ** (i % 16)))
    for (const n of numbers) expect(number(n), String(n)).toBe(JSON.stringify(n))
  })

  it('stays within MAX_JSON_NUMBER_BYTES', () => {
    expect(number(-Number.MAX_VALUE).length).toBeLessThanOrEqual(MAX_JSON_NUMBER_BYTES)
    expect(number(-Number.MIN_VALUE).length).toBeLessThanOrEqual(MAX_JSON_NUMBER_BYTES)
  })
})
