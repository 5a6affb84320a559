import { azimuthDifference, checkTargets, targetLine } from './targets';

describe('the accuracy targets', () => {
  it('says which are met, which are not, and which a run cannot check', () => {
    const checks = checkTargets({
      weatherNrmse: 0.074,
      historySkill: 0.199,
      loadSkill: null,
      inferred: { tilt: 47, azimuth: 166 },
      installed: { tilt: 45, azimuth: 158 },
    });
    expect(checks.map(targetLine)).toEqual([
      'solar (a), measured weather: daytime nRMSE ≤ 7.5 %: 7.4 %, met',
      'solar (b), no weather: skill vs smart persistence ≥ 0.20: 0.199, NOT met',
      'load: skill vs same-as-yesterday ≥ 0.25: —, not checked',
      'orientation within 5° tilt / 10° azimuth of --installed: 47°/166° vs 45°/158° (off by 2° / 8°), met',
    ]);
  });

  it('checks the orientation only against a given installation, across north', () => {
    const [, , , unchecked] = checkTargets({
      weatherNrmse: null,
      historySkill: null,
      loadSkill: 0.3,
      inferred: { tilt: 30, azimuth: 180 },
      installed: null,
    });
    expect(unchecked.met).toBeNull();
    expect(azimuthDifference(355, 4)).toBe(9);
    const [, , , across] = checkTargets({
      weatherNrmse: null,
      historySkill: null,
      loadSkill: null,
      inferred: { tilt: 20, azimuth: 355 },
      installed: { tilt: 26, azimuth: 4 },
    });
    expect([across.met, across.figure]).toEqual([false, '20°/355° vs 26°/4° (off by 6° / 9°)']);
  });
});
