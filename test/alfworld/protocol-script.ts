/**
 * The protocol script every bridge transport must pass: list, reset, an invalid
 * action, the expert plan to the win, checking every message's fields.
 */
import { expect } from 'vitest';
import type { BridgeClient, ResetReply, StepReply } from '../../src/bench/alfworld/bridge-client.js';

export function expectResetShape(r: ResetReply): void {
  expect(typeof r.observation).toBe('string');
  expect(r.observation).toContain('Your task is to: ');
  expect(typeof r.task_type).toBe('string');
  expect(typeof r.game_file).toBe('string');
  expect(Array.isArray(r.admissible_commands)).toBe(true);
  expect(r.admissible_commands.length).toBeGreaterThan(0);
}

export function expectStepShape(s: StepReply): void {
  expect(typeof s.observation).toBe('string');
  expect(typeof s.reward).toBe('number');
  expect(typeof s.done).toBe('boolean');
  expect(typeof s.won).toBe('boolean');
  expect(Array.isArray(s.admissible_commands)).toBe(true);
}

/** The same script for both backends: list, reset, an invalid action, the expert plan to the win, close. */
export async function episodeScript(c: BridgeClient, split: string, expectedTypes: string[]): Promise<{ plans: string[][] }> {
  const { games } = await c.listGames(split);
  expect(games.map((g) => g.task_type).sort()).toEqual([...expectedTypes].sort());
  games.forEach((g, i) => {
    expect(g.index).toBe(i);
    expect(g.observation).toContain('Your task is to: ');
  });
  const plans: string[][] = [];
  for (const g of games) {
    const plain = await c.reset({ split, index: g.index });
    expectResetShape(plain);
    expect(plain).not.toHaveProperty('expert_plan');
    expect(plain.game_file).toBe(g.game_file);
    expect(plain.observation).toBe(g.observation);
    const bad = await c.step('dance with the fridge', true);
    expectStepShape(bad);
    expect(bad.observation).toMatch(/^Nothing happen(ed|s)\.$/);
    expect(bad.won).toBe(false);
    expect(bad.reward).toBe(0);

    const r = await c.reset({ split, index: g.index, expert: true });
    expectResetShape(r);
    expect(r.expert_plan!.length).toBeGreaterThan(0);
    const plan: string[] = [];
    let last: StepReply | undefined;
    let next = r.expert_plan![0];
    for (let i = 0; i < 20 && next !== undefined && !last?.won; i++) {
      expect(last ? last.admissible_commands : r.admissible_commands).toContain(next);
      last = await c.step(next, true);
      expectStepShape(last);
      plan.push(next);
      next = last.expert_plan?.[0];
    }
    expect(last?.won).toBe(true);
    expect(last?.done).toBe(true);
    expect(last?.reward).toBeGreaterThan(0);
    plans.push(plan);
  }
  return { plans };
}
