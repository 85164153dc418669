"""Values through a method's parameters (analysis/callers.py, ``MethodCallers``): a
method called only as ``self.method(...)`` from its own class's methods takes what
those calls pass; every other way a method may be called leaves it unknown."""
import textwrap

import pytest

from test_values import facts

from flake8_torch04.analysis.values import TENSOR

AGENT = """\
import torch
import torch.nn as nn
{extra_imports}

class Agent({base}):
    def __init__(self, n):
        self.q = nn.Linear(4, n)

    def act(self):
        q_value = self.q(torch.randn(1, 4))
        return self.{call}

    {decorator}def _greedy(self, q_value, k={default}):
        show(q_value + 0)
        show(k)
        return q_value.max(1)[1]
{more}
"""
CALL = "_greedy(q_value)"


def agent(tmp_path, call=CALL, base="object", more="", decorator="", default="1",
          extra_imports="", others=None):
    source = AGENT.format(call=call, base=base, more=textwrap.indent(more, "") if more else "",
                          decorator=decorator, default=default, extra_imports=extra_imports)
    path = tmp_path / "agent.py"
    path.write_text(source, encoding="utf-8")
    for name, text in (others or {}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return facts(source, str(path))


def test_a_parameter_takes_what_the_class_passes(tmp_path):
    found = agent(tmp_path)
    assert found["q_value + 0"] == (TENSOR, 2, "float")
    assert found["k"][0] == "number"  # (the default: the call passes none)


@pytest.mark.parametrize("call", ["_greedy(q_value=q_value)", "_greedy(q_value, k=2)"])
def test_by_keyword_too(tmp_path, call):
    assert agent(tmp_path, call=call)["q_value + 0"] == (TENSOR, 2, "float")


def test_on_an_nn_module_too(tmp_path):
    found = agent(tmp_path, base="nn.Module")
    assert found["q_value + 0"] == (TENSOR, 2, "float")


@pytest.mark.parametrize("case, kwargs", [
    # called from outside the class: ``obj.method`` may be another class's
    ("outside", dict(more="\n\ndef run(a):\n    return a._greedy(torch.zeros(3))\n")),
    # passed as a callback: called with what is not in view
    ("callback", dict(more="\n    def hook(self):\n        register(self._greedy)\n")),
    # named by a string: ``getattr(self, '_greedy')``
    ("string", dict(more="\n    def by_name(self):\n        return getattr(self, '_greedy')\n")),
    # a subclass in the file (may call or override it)
    ("subclass", dict(more="\n\nclass Other(Agent):\n    pass\n")),
    # the class passed around (not only constructed)
    ("class passed", dict(more="\n\nREGISTRY = [Agent]\n")),
    # a base that may call it (a framework's class)
    ("framework base", dict(base="gym.Env", extra_imports="import gym")),
    # a decorated method (a static method takes no receiver)
    ("decorated", dict(decorator="@some_decorator\n    ")),
    # called in a nested function, a lambda, a comprehension
    ("lambda", dict(call="_greedy(q_value) or (lambda: self._greedy(torch.zeros(3)))()")),
    ("comprehension", dict(call="_greedy(q_value) or [self._greedy(x) for x in ()]")),
    # another module of the project spells its name
    ("elsewhere", dict(others={"train.py": "def go(a):\n    a._greedy(1)\n"})),
])
def test_not_every_caller_in_view_is_unknown(tmp_path, case, kwargs):
    assert agent(tmp_path, **kwargs)["q_value + 0"] == (None, None, None), case


@pytest.mark.parametrize("more, expected", [
    # an instance of the class by its every binding: its calls count too
    ("\n\ndef run():\n    agent = Agent(4)\n    return agent._greedy(torch.zeros(5, 3))\n",
     (TENSOR, 2, "float")),
    ("\n\nAGENT = Agent(4)\n\n\ndef run():\n    return AGENT._greedy(torch.zeros(5, 3))\n",
     (TENSOR, 2, "float")),
    ("\n\ndef run():\n    return Agent(4)._greedy(torch.zeros(5))\n",
     (TENSOR, None, "float")),  # (2-D from one call, 1-D from the other)
    # a receiver not evidently an instance: unknown
    ("\n\ndef run(make):\n    agent = make(4)\n    return agent._greedy(torch.zeros(5, 3))\n",
     (None, None, None)),
    ("\n\ndef run(flag):\n    agent = Agent(4) if flag else None\n"
     "    return agent._greedy(torch.zeros(5, 3))\n", (None, None, None)),
])
def test_calls_on_instances_of_the_class_count(tmp_path, more, expected):
    """``w = Walker(g); w.degrees(ids)`` (sweep 25: graphsage's shape): the calls on
    a receiver every binding of which makes an instance of the class are in view."""
    assert agent(tmp_path, more=more)["q_value + 0"] == expected


def test_a_default_that_is_not_a_constant_is_unknown(tmp_path):
    """A method's default is evaluated in the class body, whose names are not read."""
    assert agent(tmp_path, default="SIZE")["k"] == (None, None, None)


def test_forward_is_called_by_torch(tmp_path):
    source = textwrap.dedent("""\
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def forward(self, x):
                show(x + 0)
                return x

            def run(self):
                return self.forward(torch.zeros(2, 3))
        """)
    path = tmp_path / "net.py"
    path.write_text(source, encoding="utf-8")
    assert facts(source, str(path))["x + 0"] == (None, None, None)


def test_tv144_finds_an_element_through_a_method_parameter(tmp_path):
    """The real shape: a DQN agent's greedy action read with ``.data[0]`` from the
    ``(1, n)`` Q-values another method passes in."""
    from flake8_torch04.analysis.run import check_source

    source = textwrap.dedent("""\
        import torch
        import torch.nn as nn
        from torch.autograd import Variable


        class Agent(object):
            def __init__(self, n):
                self.q = nn.Linear(4, n)

            def act(self, state):
                q_value = self.q(Variable(torch.randn(1, 4)))
                return self._greedy(q_value)

            def _greedy(self, q_value):
                action = q_value.max(1)[1].data[0]
                return action
        """)
    path = tmp_path / "agent.py"
    path.write_text(source, encoding="utf-8")
    found = [(f.code, f.line) for f in check_source(source, str(path), ["TV144"])]
    assert found == [("TV144", 15)]
    (tmp_path / "play.py").write_text("def play(agent):\n    agent._greedy(None)\n",
                                      encoding="utf-8")
    from flake8_torch04.analysis.project import importers

    importers.forget()
    assert check_source(source, str(path), ["TV144"]) == []
