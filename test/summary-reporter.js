// Prints one closing line, "Tests: N passed, N failed", that any CI can read.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const suffix = skipped > 0 ? `, ${skipped} skipped` : '';
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\nTests: ${results.numPassedTests} passed, ${failed} failed${suffix}\n`);
  }
}
module.exports = SummaryReporter;
