import { Migration } from '@mikro-orm/migrations'

/**
 * An import runs as a job whose payload carries ids only (docs/decisions/014-job-model.md), so the rows it
 * imports wait on its `import_jobs` row until the job takes them; the job clears them when it records how it
 * ended. Rows of earlier imports have finished and have none.
 */
export class Migration20261121000800_import_job_input extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table import_jobs add column input jsonb;')
  }

  override async down(): Promise<void> {
    this.addSql('alter table import_jobs drop column input;')
  }
}
