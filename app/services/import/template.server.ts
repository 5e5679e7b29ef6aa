import { listClassification } from '#app/services/terms/classification.server.ts'
import { importTemplateCsv } from './csv.server.ts'

/**
 * The CSV template as this install publishes it: its example rows use the install's own domain and business
 * category keys (none on a fresh install), so a downloaded template imports without an "Unknown domain" error.
 */
export async function publishedImportTemplate(): Promise<string> {
  const [domains, categories] = await Promise.all([
    listClassification({ kind: 'domain' }),
    listClassification({ kind: 'category' }),
  ])
  return importTemplateCsv({
    domains: domains.items.map((item) => item.key),
    categories: categories.items.map((item) => item.key),
  })
}
