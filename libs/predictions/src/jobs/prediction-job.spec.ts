import { predictionJobId, queuedRecord, toPredictionJobView } from './prediction-job';

describe('prediction jobs', () => {
  const sunSourceId = '3F2A9C1E-77b0-4a51-9a7e-0c1d2e3f4a5b';
  const now = new Date('2026-06-10T10:00:00.750Z');

  it('names jobs <type>_<first 8 hex of the source>_<epoch seconds>', () => {
    expect(predictionJobId('train', sunSourceId, now)).toBe('train_3f2a9c1e_1781085600');
    expect(predictionJobId('predict', sunSourceId, now)).toBe('predict_3f2a9c1e_1781085600');
    expect(predictionJobId('train', sunSourceId, now, 2)).toBe('train_3f2a9c1e_1781085602');
  });

  it('shows the status object: no owner, modelMetrics {} when unknown', () => {
    const record = queuedRecord(
      { jobId: 'train_3f2a9c1e_1781085600', type: 'train', sunSourceId, ownerId: 'u' },
      now,
    );
    const view = toPredictionJobView(record);
    expect(view).toEqual({
      jobId: 'train_3f2a9c1e_1781085600',
      status: 'queued',
      progress: 0,
      message: expect.any(String),
      error: null,
      type: 'train',
      sunSourceId,
      updatedAt: '2026-06-10T10:00:00.750Z',
      metrics: null,
      predictions: null,
      dataPointsUsed: 0,
      modelMetrics: {},
      servedModel: null,
    });
    expect(view).not.toHaveProperty('ownerId');
  });
});
