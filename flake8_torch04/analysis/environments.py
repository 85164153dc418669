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
"""
from __future__ import annotations

import ast
from typing import FrozenSet

from .markers import match_offsets
from .reaching import unpack_index
from .resolve import key

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
