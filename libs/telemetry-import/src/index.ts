// A device's history from a CSV file, imported over the ingestion path by a queued job
// (docs/import.md). Apart from @solar/telemetry so that an app which only ingests (the
// ingestor) does not load the job queue.
export * from './csv-telemetry-rows';
export * from './import-report';
export * from './import-spool';
export * from './telemetry-import-queue';
export * from './telemetry-import.module';
export * from './telemetry-import-worker.module';
export * from './telemetry-importer';
export * from './telemetry-importer.module';
export * from './telemetry-imports.service';
