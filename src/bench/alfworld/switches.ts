/** ALFWorld's fidelity switches (plain data: the module's index and the config read them). */
import type { FidelitySwitch } from '../../util/fidelity.js';

export const ACTION_PARSE = 'alfworld.action-parse';
export const LLM_ERROR = 'alfworld.llm-error';

export const ALFWORLD_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: ACTION_PARSE,
    class: 'bug',
    reference:
      'the action is the text after the last "Action:" (case-sensitive), or the whole reply when it has none, stripped; only an empty result becomes look (so "ACTION: x", a made-up "Observation:" after the action, quotes and a final period all reach the environment)',
    memrl: 'the action is the first "Action:" line (any case, markdown allowed), lowercased, quotes and a final period removed; a reply without one runs look',
    source: 'memrl/agent/memp_agent.py:MempAgent._parse_action (blank check: memrl/run/alfworld_rl_runner.py:AlfworldRunner._sample_from_batch)',
  },
  {
    id: LLM_ERROR,
    class: 'bug',
    reference: 'a model call that fails (after the client\'s retries) leaves "No response." in the conversation and the turn runs look; the episode goes on and is scored',
    memrl: 'a failed model call ends the episode as an error row (fault kind model), which neither writes memory nor counts as a failure',
    source: 'memrl/agent/memp_agent.py:MempAgent.act',
  },
];
