/**
 * What became of a message: the ingestion outcomes (`overBudget`: refused, its source sent more
 * than its arrival budget), plus the consumer's own.
 */
export type MessageOutcome =
  'stored' | 'throttled' | 'duplicate' | 'overBudget' | 'rejected' | 'ignored' | 'lost';

export type OutcomeCounts = Record<MessageOutcome, number>;

const none = (): OutcomeCounts => ({
  stored: 0,
  throttled: 0,
  duplicate: 0,
  overBudget: 0,
  rejected: 0,
  ignored: 0,
  lost: 0,
});

/** Counts outcomes since the process started and since the last summary. */
export class OutcomeTally {
  private total = none();
  private sinceSummary = none();

  count(outcome: MessageOutcome): void {
    this.total[outcome] += 1;
    this.sinceSummary[outcome] += 1;
  }

  totals(): OutcomeCounts {
    return { ...this.total };
  }

  /** The counts since the previous call, or undefined when nothing happened in between. */
  takeSummary(): OutcomeCounts | undefined {
    const counts = this.sinceSummary;
    this.sinceSummary = none();
    return Object.values(counts).some((n) => n > 0) ? counts : undefined;
  }
}
