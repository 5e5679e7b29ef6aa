import type { MetaFunction } from '@remix-run/node'
import { useT } from '#app/root.tsx'

export const meta: MetaFunction = () => [{ title: 'Glossary' }]

export default function Home() {
  const t = useT()
  return (
    <section>
      <h1>{t('app.title')}</h1>
      <p>{t('app.tagline')}</p>
      <ul>
        <li>
          <a href="/api/v1/openapi">{t('home.api')}</a>
        </li>
        <li>
          <a href="/readyz">{t('home.health')}</a>
        </li>
      </ul>
    </section>
  )
}
