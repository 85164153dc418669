"""Observations of a gym environment: numpy arrays, where the file says so.

0.3-era reinforcement-learning scripts feed what ``env.reset()`` and
``env.step(action)`` return straight into tensor constructors
(``torch.Tensor([env.reset()])``).  What an observation is depends on the
environment's observation space: a ``Box`` (and ``MultiBinary``,
``MultiDiscrete``) gives numpy arrays of one dimension or more, a ``Discrete``
space plain ints.  The file makes it evident where it reads the space's shape
(``env.observation_space.shape[0]``, the usual input size of the network):
``shape[0]`` of a space without one raises.  So an observation counts as an
array of one dimension or more only where

- the file imports gym (``import gym``, ``from gym import ...``; or gymnasium),
- the environment is the same expression as one whose
  ``observation_space.shape`` the file reads (``env``, ``self.env``), and
- the observation is ``E.reset()``, or ``E.step(a)[0]`` (read directly or as the
  first name its result is unpacked into).

Anything else stays unknown; an environment rebound to something that is not
one under the same name is not followed (a script does not do that).

For the value facts (:mod:`.values`), ``gym.make('CartPole-v0')`` with an id of
:data:`OBSERVATIONS` is an environment object (:data:`ENVIRONMENT`) whose
``reset()`` gives an observation of known rank (a 1-D float array: CartPole,
Pendulum, LunarLander, the MuJoCo tasks...; an int: FrozenLake, Taxi), and whose
``step(a)`` gives ``(observation, reward, done, info)``.  An id made otherwise
(``gym.make(args.env)``), or a wrapped environment, is not followed.
"""
from __future__ import annotations

import ast
from typing import FrozenSet

from .markers import match_offsets
from .reaching import unpack_index
from .resolve import key

#: the class name of a gym environment's value (:func:`environment`)
ENVIRONMENT = "gym.Env"
#: the callables that make one
MAKERS = frozenset(("gym.make", "gymnasium.make"))
#: environment ids (before the version) -> the rank of an observation (``0``: an
#: int), for the ids whose observation space is fixed: gym's classic control,
#: Box2D (not CarRacing's images), MuJoCo and toy text tasks
OBSERVATIONS = {
    **dict.fromkeys((
        "CartPole", "MountainCar", "MountainCarContinuous", "Acrobot", "Pendulum",
        "LunarLander", "LunarLanderContinuous", "BipedalWalker", "BipedalWalkerHardcore",
        "HalfCheetah", "Hopper", "Walker2d", "Ant", "Humanoid", "HumanoidStandup",
        "InvertedPendulum", "InvertedDoublePendulum", "Reacher", "Swimmer",
    ), 1),
    **dict.fromkeys(("FrozenLake", "FrozenLake8x8", "Taxi", "CliffWalking", "NChain",
                     "Roulette"), 0),
}

#: a line that imports gym (or its successor)
_IMPORTS_GYM = r"(?m)^[ \t]*(?:import|from)[ \t]+(?:gym|gymnasium)\b"


def _shaped(ctx) -> FrozenSet[str]:
    """The expressions (by :func:`~.resolve.key`) whose ``observation_space.shape``
    the file reads, where the file imports gym."""
    found = ctx.memo.get("environments.shaped")
    if found is None:
        keys = set()
        if "observation_space" in ctx.text and match_offsets(ctx.text, _IMPORTS_GYM):
            for node in ast.walk(ctx.tree):
                if isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(
                        node.value, ast.Attribute) and node.value.attr == "observation_space":
                    k = key(node.value.value)
                    if k is not None:
                        keys.add(k)
        found = ctx.memo["environments.shaped"] = frozenset(keys)
    return found


def _environment_call(ctx, node: ast.AST, method: str) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == method):
        return False
    k = key(node.func.value)
    return k is not None and k in _shaped(ctx)


def observation(ctx, node: ast.AST) -> bool:
    """Whether ``node`` is evidently an observation of a gym environment with a
    shaped observation space: a numpy array of one dimension or more."""
    if _environment_call(ctx, node, "reset") and not node.args and not node.keywords:
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and node.slice.value == 0:
        return _environment_call(ctx, node.value, "step")
    return False


def observed(ctx, d) -> bool:
    """Whether the definition ``d`` (of :mod:`.reaching`) binds an observation:
    ``state = env.reset()``, ``state, reward, done, _ = env.step(a)``."""
    if d.value is None:
        return False
    if d.kind == "assign":
        return observation(ctx, d.value)
    if d.kind == "unpack":
        return unpack_index(d) == 0 and _environment_call(ctx, d.value, "step")
    return False


def environment(call: ast.Call):
    """The value of ``gym.make(id)``: an :data:`ENVIRONMENT` object whose ``rank``
    is its observations' (see :data:`OBSERVATIONS`), or unknown."""
    from .objects import OBJECT
    from .values import UNKNOWN, Value

    given = call.args[0] if len(call.args) == 1 and not call.keywords else None
    if not (isinstance(given, ast.Constant) and isinstance(given.value, str)):
        return UNKNOWN
    rank = OBSERVATIONS.get(given.value.rsplit("-v", 1)[0])
    if rank is None:
        return UNKNOWN
    return Value(OBJECT, rank, "float" if rank else "int", name=ENVIRONMENT)


def environment_method(receiver, attr: str, call: ast.Call):
    """What ``env.reset()`` and ``env.step(a)`` give, for an :func:`environment`."""
    from .values import DICT, NDARRAY, NUMBER, TUPLE, UNKNOWN, Value

    seen = Value(NDARRAY, receiver.rank, receiver.dtype) if receiver.rank else Value(
        NUMBER, dtype="int")
    if attr == "reset" and not call.args and not call.keywords:
        return seen
    if attr == "step" and len(call.args) == 1 and not call.keywords:
        return Value(TUPLE, parts=(seen, Value(NUMBER, dtype="float"), UNKNOWN, Value(DICT)))
    return UNKNOWN
