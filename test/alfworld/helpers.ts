import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../helpers/temp.js';

export const FAKE_ALFWORLD = resolve('test/alfworld/fake_alfworld');

/** A fake ALFWorld data tree: one game per split, and an env config pointing at it. */
export function fakeAlfworldData(): { dir: string; configPath: string; config: Record<string, unknown>; logPath: string } {
  const dir = tempDir('memrl-fake-alf-');
  const game = (split: string, folder: string, task: string, solution: string[]) => {
    const d = join(dir, 'json_2.1.1', split, folder, 'trial_T1');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'game.tw-pddl'), JSON.stringify({ task, room: 'You are in the middle of a room. Looking quickly around you, you see a desk 1.', solution }));
  };
  game('train', 'pick_and_place_simple-Key-None-Desk-1', 'put a keychain in desk.', ['go to desk 1', 'take keychain 1 from desk 1', 'move keychain 1 to desk 1']);
  game('train', 'pick_heat_then_place_in_recep-Mug-None-Desk-2', 'heat some mug and put it in desk.', ['go to desk 1', 'heat mug 1 with microwave 1']);
  game('valid_seen', 'look_at_obj_in_light-Book-None-DeskLamp-3', 'look at book under the desklamp.', ['go to desk 1', 'use desklamp 1']);
  const config = {
    dataset: {
      data_path: join(dir, 'json_2.1.1', 'train'),
      eval_id_data_path: join(dir, 'json_2.1.1', 'valid_seen'),
      eval_ood_data_path: join(dir, 'json_2.1.1', 'valid_unseen'),
    },
    env: { type: 'AlfredTWEnv' },
  };
  const configPath = join(dir, 'alfworld.yaml');
  writeFileSync(configPath, `dataset:\n  data_path: ${config.dataset.data_path}\n  eval_id_data_path: ${config.dataset.eval_id_data_path}\n  eval_ood_data_path: ${config.dataset.eval_ood_data_path}\nenv:\n  type: AlfredTWEnv\n`);
  return { dir, configPath, config, logPath: join(dir, 'calls.jsonl') };
}
