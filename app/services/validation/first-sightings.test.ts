import { describe, expect, it } from 'vitest'
import { FirstSightings } from './first-sightings.ts'

describe('FirstSightings', () => {
  it('says a string was seen only from its second sighting on', () => {
    const sightings = new FirstSightings(100)
    expect(sightings.seen('GitHub')).toBe(false)
    expect(sightings.seen('Github')).toBe(false)
    expect(sightings.seen('GitHub')).toBe(true)
    expect(sightings.seen('Github')).toBe(true)
    expect(sightings.seen('')).toBe(false)
    expect(sightings.seen('')).toBe(true)
  })

  it('mistakes few new strings for seen ones while it holds at most its capacity', () => {
    const sightings = new FirstSightings(20_000)
    let mistaken = 0
    for (let n = 0; n < 20_000; n++) if (sightings.seen(`text ${n}`)) mistaken++
    // 20,000 marks in 2^20 bits: each new string finds its bit set with probability below 2%.
    expect(mistaken).toBeGreaterThan(0)
    expect(mistaken).toBeLessThan(400)
    for (let n = 0; n < 20_000; n++) expect(sightings.seen(`text ${n}`)).toBe(true)
  })

  it('starts over past its capacity', () => {
    const sightings = new FirstSightings(3)
    for (const text of ['a', 'b', 'c']) sightings.seen(text)
    // The fourth mark clears the table first, so 'a' is new again afterwards.
    expect(sightings.seen('d')).toBe(false)
    expect(sightings.seen('a')).toBe(false)
    expect(sightings.seen('d')).toBe(true)
  })
})
