import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'

type Service = {
  image?: string
  build?: string
  command?: string[]
  depends_on?: Record<string, { condition: string }>
  environment?: Record<string, string>
}

// There is no Docker engine on the development machines, so the production shape is checked by structure.
const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>
}

describe('docker-compose.yml', () => {
  const { services } = compose

  it('has postgres (pgvector), redis, migrate, web and worker', () => {
    expect(Object.keys(services).sort()).toEqual(['migrate', 'postgres', 'redis', 'web', 'worker'])
    expect(services.postgres!.image).toMatch(/^pgvector\/pgvector:pg1[5-9]/)
    expect(services.redis!.image).toMatch(/^redis:/)
  })

  it('runs migrate once, then web and worker only after it completed successfully', () => {
    expect(services.migrate!.command).toEqual(['node', 'bin/glossary.js', 'migrate'])
    expect(services.web!.command).toEqual(['node', 'bin/glossary.js', 'web'])
    expect(services.worker!.command).toEqual(['node', 'bin/glossary.js', 'worker'])
    for (const name of ['web', 'worker']) {
      expect(services[name]!.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' })
    }
    expect(services.migrate!.depends_on?.postgres?.condition).toBe('service_healthy')
  })

  it('runs the same image and release for the three application services', () => {
    const images = ['migrate', 'web', 'worker'].map((name) => services[name]!.image)
    expect(new Set(images).size).toBe(1)
    const version = JSON.parse(fs.readFileSync('package.json', 'utf8')).version
    expect(images[0]).toBe(`glossary-service:${version}`)
  })

  it('gives the application services a production configuration with Postgres and Redis', () => {
    for (const name of ['migrate', 'web', 'worker']) {
      const env = services[name]!.environment!
      expect(env.NODE_ENV).toBe('production')
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//)
      expect(env.REDIS_URL).toBe('redis://redis:6379')
      expect(env.GLOSSARY_ALLOWED_ORIGINS).toBeDefined()
      expect(env.GLOSSARY_ENCRYPTION_KEY).toBeDefined()
    }
  })
})
