"""memrl's ALFWorld bridge: JSON lines over stdin/stdout.

One request per line, one response per line, in order:
  {"id": 1, "cmd": "init", "env": "standin"|"alfworld", "seed": 42,
   "config": {...ALFWorld env YAML as JSON...}, "env_type": "AlfredTWEnv"}
      -> {"id": 1, "ok": true, "env_label": "household-standin"|"alfworld", "env_version": "0.3.5"|null}
  {"cmd": "list", "split": "train"|"valid_seen"|"valid_unseen", "observations": true}
      -> {"ok": true, "games": [{"index", "game_file", "task_type", "observation"?}]}
  {"cmd": "reset", "split": ..., "index": 3} or {"cmd": "reset", "game_file": "..."}, "expert": false
      -> {"ok": true, "observation", "task_type", "game_file", "admissible_commands", "expert_plan"?}
  {"cmd": "step", "action": "go to desk 1", "expert": false}
      -> {"ok": true, "observation", "reward", "done", "won", "admissible_commands", "expert_plan"?}
  {"cmd": "close"} -> {"ok": true}, then the bridge exits.
Failures: {"id", "ok": false, "error": "<one line>", "code"?: "missing_alfworld"|"bad_request"}.

Only protocol lines go to stdout: anything a library prints goes to stderr.
Standard library only (the real path needs the alfworld package).
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import standin  # noqa: E402

OUT = sys.stdout
sys.stdout = sys.stderr  # library chatter must not corrupt the protocol

INSTALL_HINT = "the alfworld Python package is not installed; install it and its game data with: pip install alfworld && alfworld-download"

# ALFWorld game folder prefixes -> the six task types.
ALF_PREFIXES = [
    ("pick_and_place_simple", "pick_and_place"),
    ("look_at_obj_in_light", "look_at_obj_in_light"),
    ("pick_clean_then_place_in_recep", "pick_clean_then_place"),
    ("pick_heat_then_place_in_recep", "pick_heat_then_place"),
    ("pick_cool_then_place_in_recep", "pick_cool_then_place"),
    ("pick_two_obj_and_place", "pick_two_obj"),
]
ALF_TRAIN_EVAL = {"train": "train", "valid_seen": "eval_in_distribution", "valid_unseen": "eval_out_of_distribution"}


class BridgeError(Exception):
    def __init__(self, message, code="bad_request"):
        Exception.__init__(self, message)
        self.code = code


def alf_task_type(game_file):
    for part in reversed(str(game_file).replace("\\", "/").split("/")):
        for prefix, task_type in ALF_PREFIXES:
            if part.startswith(prefix):
                return task_type
    return "unknown"


class StandinBackend(object):
    label = "household-standin"
    version = None

    def __init__(self, req):
        self.env = standin.StandinEnv(seed=req.get("seed", 0), games_per_type=req.get("games_per_type"))
        self.game = None
        self.history = []
        self.plan = []

    def list(self, split, observations):
        try:
            specs = self.env.list(split)
        except ValueError as e:
            raise BridgeError(str(e))
        out = []
        for i, s in enumerate(specs):
            g = {"index": i, "game_file": s.game_file, "task_type": s.task_type}
            if observations:
                g["observation"] = standin.Game(s).first_observation()
            out.append(g)
        return out

    def reset(self, split, index, game_file, expert):
        try:
            spec = self.env.spec_for(split=split, index=index, game_file=game_file)
        except ValueError as e:
            raise BridgeError(str(e))
        self.game = standin.Game(spec)
        self.history = []
        self.plan = spec.expert_plan()
        res = {
            "observation": self.game.first_observation(),
            "task_type": spec.task_type,
            "game_file": spec.game_file,
            "admissible_commands": self.game.admissible(),
        }
        if expert:
            res["expert_plan"] = list(self.plan)
        return res

    def step(self, action, expert):
        if self.game is None:
            raise BridgeError("step before reset")
        obs = self.game.step(action)
        self.history.append(" ".join(action.strip().lower().split()))
        won = self.game.won
        res = {
            "observation": obs,
            "reward": 1.0 if won else 0.0,
            "done": won,
            "won": won,
            "admissible_commands": self.game.admissible(),
        }
        if expert:
            k = len(self.history)
            # The rest of the fixed plan while the agent has followed it; else none.
            res["expert_plan"] = list(self.plan[k:]) if self.history == self.plan[:k] else []
        return res


def first(x):
    """ALFWorld returns batched values (lists/tuples of length batch_size)."""
    if isinstance(x, (list, tuple)):
        return x[0] if x else None
    return x


class AlfworldBackend(object):
    """The thin path to the real package, through its documented API only."""

    label = "alfworld"

    def __init__(self, req):
        try:
            import alfworld.agents.environment as environment  # noqa: F401
        except ImportError as e:
            raise BridgeError("%s (import failed: %s)" % (INSTALL_HINT, e), code="missing_alfworld")
        self.environment = environment
        import alfworld  # noqa: E402

        # Part of the game-listing cache key on the TypeScript side.
        self.version = getattr(alfworld, "__version__", None)
        self.config = req.get("config") or {}
        self.env_type = req.get("env_type") or "AlfredTWEnv"
        self.bases = {}
        self.files = {}
        self.env = None
        self.expert_key = "extra.expert_plan"

    def base(self, split):
        if split not in ALF_TRAIN_EVAL:
            raise BridgeError("unknown split %r (expected train, valid_seen or valid_unseen)" % split)
        if split not in self.bases:
            cls = self.environment.get_environment(self.env_type)
            self.bases[split] = cls(self.config, train_eval=ALF_TRAIN_EVAL[split])
            # reset() narrows game_files to one game: keep the split's full list.
            self.files[split] = list(getattr(self.bases[split], "game_files", []) or [])
        return self.bases[split]

    def games(self, split):
        self.base(split)
        return list(self.files[split])

    def list(self, split, observations):
        out = []
        for i, gf in enumerate(self.games(split)):
            g = {"index": i, "game_file": gf, "task_type": alf_task_type(gf)}
            if observations:
                g["observation"] = self.reset(split, i, None, False)["observation"]
            out.append(g)
        return out

    def reset(self, split, index, game_file, expert):
        if game_file is not None:
            if not os.path.exists(game_file):
                raise BridgeError("game file %s does not exist" % game_file)
            split = split or "train"
        else:
            files = self.games(split)
            if not files:
                raise BridgeError("split %s has no games (check the dataset paths in the ALFWorld config)" % split)
            if index is None or index < 0 or index >= len(files):
                raise BridgeError("game index %s is out of range for split %s (0..%d)" % (index, split, len(files) - 1))
            game_file = files[index]
        base = self.base(split)
        # Play exactly this game: one game file, batch size 1.
        base.game_files = [game_file]
        base.num_games = 1
        self.env = base.init_env(batch_size=1)
        obs, infos = self.env.reset()
        res = {
            "observation": first(obs),
            "task_type": alf_task_type(game_file),
            "game_file": first(infos.get("extra.gamefile")) or game_file,
            "admissible_commands": list(first(infos.get("admissible_commands")) or []),
        }
        if expert:
            res["expert_plan"] = list(first(infos.get(self.expert_key)) or [])
        return res

    def step(self, action, expert):
        if self.env is None:
            raise BridgeError("step before reset")
        obs, scores, dones, infos = self.env.step([action])
        won = bool(first(infos.get("won")))
        res = {
            "observation": first(obs),
            "reward": float(first(scores) or 0.0),
            "done": bool(first(dones)),
            "won": won,
            "admissible_commands": list(first(infos.get("admissible_commands")) or []),
        }
        if expert:
            res["expert_plan"] = list(first(infos.get(self.expert_key)) or [])
        return res


def handle(state, req):
    cmd = req.get("cmd")
    if cmd == "init":
        env = req.get("env", "standin")
        if env == "standin":
            state["backend"] = StandinBackend(req)
        elif env == "alfworld":
            state["backend"] = AlfworldBackend(req)
        else:
            raise BridgeError("unknown env %r (expected standin or alfworld)" % env)
        return {"env_label": state["backend"].label, "env_version": state["backend"].version}
    if cmd == "close":
        state["closing"] = True
        return {}
    if cmd == "_sleep" and os.environ.get("MEMRL_BRIDGE_TEST") == "1":
        time.sleep(float(req.get("seconds", 1)))
        return {}
    backend = state.get("backend")
    if backend is None:
        raise BridgeError("send init first")
    if cmd == "list":
        return {"games": backend.list(req.get("split"), bool(req.get("observations")))}
    if cmd == "reset":
        index = req.get("index")
        return backend.reset(req.get("split"), None if index is None else int(index), req.get("game_file"), bool(req.get("expert")))
    if cmd == "step":
        action = req.get("action")
        if not isinstance(action, str):
            raise BridgeError("step needs a string action")
        return backend.step(action, bool(req.get("expert")))
    raise BridgeError("unknown command %r" % cmd)


def main():
    state = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rid = None
        try:
            req = json.loads(line)
            rid = req.get("id")
            res = handle(state, req)
            res = dict(res, id=rid, ok=True)
        except BridgeError as e:
            res = {"id": rid, "ok": False, "error": str(e), "code": e.code}
        except Exception as e:  # a bug or a library failure: report it, keep serving
            res = {"id": rid, "ok": False, "error": "%s: %s" % (type(e).__name__, e), "code": "internal"}
        OUT.write(json.dumps(res) + "\n")
        OUT.flush()
        if state.get("closing"):
            break


if __name__ == "__main__":
    main()
