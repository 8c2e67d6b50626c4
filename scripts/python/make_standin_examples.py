"""Writes data/samples/alfworld/standin-examples.json: one few-shot example per task type,
played in the household stand-in (src/bench/alfworld/python/standin.py) by its expert plan.

    python3 scripts/python/make_standin_examples.py

The real few-shot examples (ReAct's, shipped by MemRL) are a dataset `memrl data pull
alfworld` fetches; these stand in for them when the offline stand-in runs without a copy.
Same shape ([{task, example: [{role, content}]}]), same turn format (Thought / Action,
Observation), our own games (seed 7, not the seed runs use) and our own words.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "src", "bench", "alfworld", "python"))

import standin  # noqa: E402

# The ReAct names memrl's loader maps task types to (EXAMPLE_FOR in src/bench/alfworld/dataset.ts).
NAMES = {
    "pick_and_place": "put",
    "pick_clean_then_place": "clean",
    "pick_heat_then_place": "heat",
    "pick_cool_then_place": "cool",
    "look_at_obj_in_light": "examine",
    "pick_two_obj": "puttwo",
}
SEED = 7


def thought(action, spec, holding):
    """A short reason for the expert's next action."""
    words = action.split(" ")
    if action.startswith("go to "):
        place = action[6:]
        if holding is None:
            return "I need a %s; I look for one at %s." % (spec.obj_kind, place)
        if place == spec.target:
            return "I have the %s; now I take it to %s." % (holding, place)
        if standin.kind_of(place) in standin.APPLIANCE:
            return "I have the %s; the %s is where I can %s it." % (holding, place, standin.APPLIANCE[standin.kind_of(place)])
        if place == spec.lamp_at:
            return "I have the %s; the %s is at %s, where I can look at it under the light." % (holding, spec.lamp, place)
        return "I have the %s; now I take it to %s." % (holding, place)
    if words[0] == "open":
        return "The %s is closed, so I open it." % action[5:]
    if words[0] == "take":
        return "There it is: I take %s." % action[5:].split(" from ")[0]
    if words[0] in ("clean", "heat", "cool"):
        return "I %s the %s here." % (words[0], holding)
    if words[0] == "use":
        return "I turn on the %s." % action[4:]
    if words[0] == "move":
        return "I put the %s down here." % holding
    return "Next: %s." % action


def example(task_type):
    spec = standin.GameSpec("train", task_type, 0, SEED)
    game = standin.Game(spec)
    first = game.first_observation()[len(standin.BANNER):]
    turns = [{"role": "user", "content": first}]
    for action in spec.expert_plan():
        turns.append({"role": "assistant", "content": "Thought: %s\nAction: %s" % (thought(action, spec, game.holding), action)})
        turns.append({"role": "user", "content": "Observation: %s" % game.step(action)})
    if not game.won:
        raise SystemExit("the expert plan did not win %s" % spec.game_file)
    return {"task": NAMES[task_type], "example": turns}


def main():
    out_dir = os.path.join(ROOT, "data", "samples", "alfworld")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "standin-examples.json")
    with open(path, "w") as f:
        json.dump([example(t) for t in standin.TASK_TYPES], f, indent=1)
        f.write("\n")
    print("wrote %s" % path)


if __name__ == "__main__":
    main()
