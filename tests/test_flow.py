"""Data-flow facts (``_flow``): reaching definitions through branches, loops,
``try``/``with`` blocks, accumulation across iterations, sinks, no-grad regions."""
import ast
import pathlib
import sys
import textwrap

import pytest

from flake8_torch04.analysis import scalars as analysis_scalars
from flake8_torch04.analysis.flow import Flow, tokenizer_lines
from flake8_torch04.analysis.grad import enclosing_loop, grad_disabled
from flake8_torch04.analysis.nodes import body_nodes, innermost, spans_hit, walk_hits
from flake8_torch04.analysis.reaching import MANY
from flake8_torch04.analysis.resolve import key
from flake8_torch04.analysis.run import check

HERE = pathlib.Path(__file__).parent


def _parses(path):
    try:
        ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:  # TV101's fixtures: only their rescued text parses
        return False
    return True


SOURCES = [p for p in sorted([*(HERE / "fixtures").glob("*.py"),
                              *(HERE.parent / "examples").glob("*.py")]) if _parses(p)]


def function(source):
    tree = ast.parse(textwrap.dedent(source))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))


def reads(func, name):
    """The ``Load`` reads of ``name`` in source order (augmented targets included)."""
    found = [n for n in ast.walk(func) if isinstance(n, (ast.Name, ast.Attribute))
             and key(n) == name and (isinstance(n.ctx, ast.Load) or _aug_target(func, n))]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _aug_target(func, node):
    return any(isinstance(a, ast.AugAssign) and a.target is node for a in ast.walk(func))


def lines(defs):
    return [d.node.lineno for d in defs]


def test_straight_line_and_branches():
    func = function("""
        def f(c):
            x = 1
            print(x)
            if c:
                x = 2
            else:
                x = 3
            print(x)
            if c:
                x = 4
            print(x)
    """)
    flow = Flow(func)
    first, second, third = (flow.reaching(r) for r in reads(func, "x"))
    assert lines(first) == [3]
    assert lines(second) == [6, 8]
    assert lines(third) == [6, 8, 11]


def test_return_and_break_end_a_path():
    func = function("""
        def f(c, xs):
            x = 1
            if c:
                x = 2
                return x
            print(x)
            for y in xs:
                x = y
                break
            print(x)
    """)
    flow = Flow(func)
    _, after_if, after_loop = (flow.reaching(r) for r in reads(func, "x"))
    assert lines(after_if) == [3]
    assert lines(after_loop) == [3, 9]


def test_loop_back_edge_reaches_earlier_reads():
    func = function("""
        def f(loader):
            total = 0
            for batch in loader:
                print(total)
                total += batch
            print(total)
    """)
    flow = Flow(func)
    inside, target, after = reads(func, "total")
    assert lines(flow.reaching(inside)) == [3, 6]
    assert lines(flow.reaching(after)) == [3, 6]
    loop = func.body[1]
    assert flow.carried(target, loop)


def test_value_redefined_in_the_iteration_is_not_carried():
    func = function("""
        def f(loader):
            for batch in loader:
                acc = 0
                acc += batch
                out = []
                out.append(batch)
    """)
    flow = Flow(func)
    loop = func.body[0]
    (acc,) = reads(func, "acc")
    out = reads(func, "out")[0]
    assert not flow.carried(acc, loop)
    assert not flow.carried(out, loop)


def test_nested_loops_and_attribute_keys():
    func = function("""
        def f(self, epochs, loader):
            for epoch in epochs:
                self.total = 0
                for batch in loader:
                    self.total += batch
    """)
    flow = Flow(func)
    outer, inner = func.body[0], func.body[0].body[1]
    (target,) = reads(func, "self.total")
    assert flow.carried(target, inner)
    assert not flow.carried(target, outer)


def test_try_handlers_see_the_body_and_the_state_before():
    func = function("""
        def f():
            x = 1
            try:
                x = 2
                g()
            except ValueError:
                print(x)
                x = 3
            print(x)
    """)
    flow = Flow(func)
    in_handler, after = (flow.reaching(r) for r in reads(func, "x"))
    assert lines(in_handler) == [3, 5]
    assert lines(after) == [5, 9]


def test_unpacking_with_and_parameters():
    func = function("""
        def f(p, loader):
            a, b = 1, g()
            c, d = g()
            with open(p) as fh:
                print(a, b, c, fh, p)
    """)
    flow = Flow(func)
    (a,), (b,), (c,) = (flow.reaching(reads(func, n)[0]) for n in "abc")
    assert (a.kind, type(a.value).__name__) == ("assign", "Constant")
    assert (b.kind, type(b.value).__name__) == ("assign", "Call")
    assert c.kind == "unpack"
    (fh,) = flow.reaching(reads(func, "fh")[0])
    assert fh.kind == "with"
    (p,) = flow.reaching(reads(func, "p")[1])
    assert p.kind == "param"
    assert flow.reaching(reads(func, "g")[0]) == ()


def test_comprehension_variables_are_their_own():
    func = function("""
        def f(xs):
            x = 1
            ys = [x for x in xs]
            print(x)
    """)
    flow = Flow(func)
    in_comp, after = reads(func, "x")
    assert [d.kind for d in flow.reaching(in_comp)] == ["comp"]
    assert lines(flow.reaching(after)) == [3]


def test_too_many_definitions_are_unknown():
    body = "".join(f"    if c{i}:\n        x = {i}\n" for i in range(20))
    func = function(f"def f():\n    x = 0\n{body}    print(x)\n")
    flow = Flow(func)
    assert flow.reaching(reads(func, "x")[0]) is None


def test_backward_sinks_and_scalar_terms():
    func = function("""
        def f(model, xs, crit, coef):
            total = 0
            for x in xs:
                total = total + crit(model(x))
            loss = total / len(xs)
            (loss + entropy * coef).backward()
            feats.backward(grad)
            other = 0
            return other.item()
    """)
    flow = Flow(func)
    assert {"loss", "total", "entropy", "coef", "crit", "model"} <= flow.sinks
    assert "other" not in flow.sinks and "xs" not in flow.sinks  # through .item(), len()
    assert {"loss", "entropy", "coef"} <= flow.backward_plain
    assert "feats" in flow.backward and "feats" not in flow.backward_plain


def test_grad_disabled_and_enclosing_loop():
    tree = ast.parse(textwrap.dedent("""
        import torch
        def f(xs):
            with torch.no_grad():
                for x in xs:
                    g(x)
            for x in xs:
                h(x)
    """))
    func = tree.body[1]
    with_, loop2 = func.body
    loop1 = with_.body[0]
    resolve = {"torch.no_grad": "torch.no_grad"}.get

    def resolver(node):
        return resolve(key(node) or "")

    stmt1, stmt2 = loop1.body[0], loop2.body[0]
    assert grad_disabled([tree, func, with_, loop1], resolver)
    assert not grad_disabled([tree, func, loop2], resolver)
    assert enclosing_loop([tree, func, with_, loop1], stmt1) is loop1
    assert enclosing_loop([tree, func, loop2, stmt2], stmt2.value) is loop2
    assert enclosing_loop([tree, func], loop1) is None


def test_long_accumulation_chains_in_one_loop():
    """Each ``acc += ...`` builds on the one before: thousands of them in one
    loop body are followed without recursion."""
    chain = "".join(f"        acc += x{i}\n" for i in range(3000))
    func = function(f"def f(loader):\n    acc = 0\n    for b in loader:\n{chain}")
    flow = Flow(func)
    loop = func.body[1]
    targets = [stmt.target for stmt in loop.body]
    assert all(flow.carried(target, loop) for target in reversed(targets))
    fresh = function(f"def f(loader):\n    for b in loader:\n        acc = 0\n{chain}")
    flow = Flow(fresh)
    loop = fresh.body[0]
    assert not any(flow.carried(stmt.target, loop) for stmt in loop.body[1:])


def test_enclosing_loop_in_a_long_body():
    func = function("def f(xs):\n    for x in g(xs):\n" + "        h(x)\n" * 2000
                    + "    else:\n        h(0)\n")
    loop = func.body[0]
    last, other = loop.body[-1], loop.orelse[0]
    assert enclosing_loop([func, loop, last], last.value) is loop
    assert enclosing_loop([func, loop, other], other.value) is None
    assert enclosing_loop([func, loop, loop.iter], loop.iter.args[0]) is None


def test_bindings_from_the_statements():
    func = function("""
        def f(p, *rest, **options):
            a, (b, c) = 1, (g(), 3)
            d, e = pair
            self.x += 1
            for i, (j, k) in enumerate(model.parameters()):
                with open(p) as fh, lock:
                    del a
            try:
                import numpy as np
            except ValueError as err:
                pass
            def inner(z=(w := 5)):
                q = 1
            [u for u in rest]
    """)
    flow = Flow(func)
    assert flow.bound >= {"p", "rest", "options", "a", "b", "c", "d", "e", "self.x", "i",
                          "j", "k", "fh", "np", "err", "inner", "w"}
    assert not flow.bound & {"q", "z", "pair", "g", "lock"}
    assert [type(v).__name__ for v in flow.assignments_to("a")] == ["Constant"]
    assert [type(v).__name__ for v in flow.assignments_to("b")] == ["Call"]
    assert flow.assignments_to("d") == []  # unpacked: no value of its own
    assert len(flow.assignments_to("self.x")) == 1
    assert len(flow.assignments_to("w")) == 1
    (loop,) = flow.loops_over("j")
    assert loop.func.id == "enumerate"


def test_too_many_assignments_are_not_listed():
    body = "".join(f"    x = {i}\n    y = {i}\n" for i in range(MANY))
    flow = Flow(function(f"def f():\n{body}    x = 0\n"))
    assert flow.assignments_to("x") is None
    assert len(flow.assignments_to("y")) == MANY


class _Context:
    """The part of ``_core.Context`` a :class:`Flow` reads: the source."""

    def __init__(self, lines):
        self.source = type("Source", (), {"lines": lines})()
        self.text = "".join(lines)


def _flows(source, lines=None):
    tree = ast.parse(source)
    ctx = _Context(lines if lines is not None else source.splitlines(True))
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(
        n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))]
    return [(Flow(scope, ctx), Flow(scope)) for scope in scopes]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_backward_facts_from_the_lines_that_say_backward(path):
    """Found from the statements on lines that say ``backward``, they are those
    of the walk over the whole body."""
    for with_source, without in _flows(path.read_text(encoding="utf-8")):
        assert with_source.backward == without.backward
        assert with_source.backward_plain == without.backward_plain


def test_backward_facts_read_identifiers_like_python():
    source = textwrap.dedent("""
        def f(a, b):
            x = 1
            (a +
             b).\
                ｂackward()
            if x:
                y = [l.backward(g) for l in ls]
            return lambda: z.backward()
    """)
    (module, _), (func, _), (lam, _) = _flows(source)
    assert func.backward == {"l"} and func.backward_plain == {"a", "b"}
    assert lam.backward == {"z"}
    assert module.backward == set()


def test_backward_facts_when_lines_are_not_the_tokenizers():
    """A form feed splits a line for ``str.splitlines`` but not for Python."""
    source = "def f(loss):\n    # page\x0c break\n    x = 1\n    loss.backward()\n"
    lines = source.splitlines(True)
    assert tokenizer_lines(lines, source) is None
    assert tokenizer_lines(source.split("\n"), source) is None
    proper = [line + "\n" for line in source.split("\n")[:-1]]
    assert tokenizer_lines(proper, source) is proper
    (_, _), (func, _) = _flows(source, lines)
    assert func.backward == {"loss"}


def _reference_nodes(scope):
    """``body_nodes`` as written with ``ast.iter_child_nodes``."""
    skip = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    stack = [scope.body] if isinstance(scope, ast.Lambda) else list(reversed(scope.body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            stack.extend(reversed([c for c in ast.iter_child_nodes(node)
                                   if not isinstance(c, skip)]))


_EVERY_SYNTAX = """
import a.b as c
from d import *
async def f(x, /, y=1, *args, z: int = 2, **kw):
    global g
    async with a as (b, c), d:
        async for e in f:
            await g
    try:
        pass
    except (A, B) as err:
        raise X from err
    else:
        del a[1:2, ::3], b.c
    finally:
        assert x, "msg"
    while (n := next(it)) is not None:
        yield from {k: v for k, v in d.items() if k} | {*s}
    lam = lambda q, *r: q + r[0]
    s = f"{x!r:>{w}} {{}}" + b"x".decode()
    t: List[int] = [i ** 2 for i in range(3) for _ in range(i)]
    u = not a and b or -c if d < e <= f else ~g
    class K(Base, metaclass=M):
        attr = 1
    return {**kw, 1: 2}, (yield)
"""
_MATCH = """
def m(p):
    match p:
        case {"k": 1, **rest} if rest:
            pass
        case [1, *others] | Point(x=0, y=_) as whole:
            pass
        case None:
            pass
"""


@pytest.mark.parametrize("path", ["every syntax", *SOURCES], ids=str)
def test_body_nodes_are_the_child_nodes(path):
    source = _EVERY_SYNTAX if path == "every syntax" else path.read_text(encoding="utf-8")
    if path == "every syntax" and hasattr(ast, "Match"):
        source += _MATCH
    if path == "every syntax" and hasattr(ast, "TypeAlias"):
        source += "type Pair[T: int, *Ts, **P] = tuple[T, T]\n"
    tree = ast.parse(source)
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(
        n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))]
    for scope in scopes:
        assert [id(n) for n in body_nodes(scope)] == [id(n) for n in _reference_nodes(scope)]


def _legacy_code(statements):
    """A training script of about ``statements`` statements: a function of
    repeated training loops, and one loop with a long body of accumulations."""
    block = textwrap.dedent("""\
        for batch_idx, (data, target) in enumerate(loader):
            output = model(Variable(data))
            loss = criterion(output, Variable(target))
            loss.backward()
            total_loss += loss.data[0]
            losses.append(loss)
            running = running + loss
            if batch_idx % 10 == 0:
                print(loss.data[0], output[0], x.size()[0])
            for p in model.parameters():
                p.data.add_(-lr, p.grad.data)
    """)
    blocks = textwrap.indent(block, "    ") * (statements // 24)
    chain = "".join(f"        cost{i} = crit(out, y)\n        total += cost{i}\n"
                    for i in range(statements // 4))
    return (
        "import torch\nfrom torch.autograd import Variable\n\n\n"
        "def train(model, loader, criterion, lr, x):\n"
        "    total_loss = running = 0\n    losses = []\n" + blocks
        + "\n\ndef evaluate(loader, crit, out, y):\n    total = 0\n    for b in loader:\n"
        + chain
    )


def _lines_per_statement(statements):
    """Lines of the plugin's code run per statement of the checked code: a count,
    not a time (a quadratic path runs more lines per statement as functions grow)."""
    source = _legacy_code(statements)
    tree = ast.parse(source)
    lines = source.splitlines(True)
    count = sum(isinstance(node, ast.stmt) for node in ast.walk(tree))
    loops = [(func, loop) for func in tree.body[2:] for loop in func.body
             if isinstance(loop, ast.For)]
    package = str(pathlib.Path(check.__code__.co_filename).parent)
    executed = [0]

    def local(frame, event, arg):
        if event == "line":
            executed[0] += 1
        return local

    def tracer(frame, event, arg):  # (only frames of the plugin's own code)
        return local if frame.f_code.co_filename.startswith(package) else None

    sys.settrace(tracer)
    try:
        found = check(tree, lines, codes=["TV003", "TV004"])
        flows = {func: Flow(func) for func in tree.body[2:]}
        for func, loop in loops:
            for stmt in loop.body:
                if isinstance(stmt, ast.AugAssign):
                    flows[func].carried(stmt.target, loop)
                    flows[func].reaching(stmt.target)
    finally:
        sys.settrace(None)
    assert found, "the code exercises the rules"
    return executed[0] / count


def test_cost_grows_linearly():
    """The work per statement does not grow with the size of a function."""
    small = _lines_per_statement(500)
    assert _lines_per_statement(2000) < 1.5 * small
    assert _lines_per_statement(8000) < 1.5 * small


def test_evidence_bounds_hold(monkeypatch):
    """The cheap searches of TV003 never rule out evidence the full analysis finds."""
    Evidence = analysis_scalars.Evidence
    scalar, history = Evidence.scalar, Evidence.history
    may_be_scalar, may_carry_history = Evidence.may_be_scalar, Evidence.may_carry_history
    checked = []

    def checked_scalar(self, node, by_name):
        found = scalar(self, node, by_name)
        checked.append(found)
        assert not found or may_be_scalar(self, node, by_name)
        return found

    def checked_history(self, node):
        found = history(self, node)
        checked.append(found)
        assert not found or may_carry_history(self, node)
        return found

    monkeypatch.setattr(Evidence, "scalar", checked_scalar)
    monkeypatch.setattr(Evidence, "history", checked_history)
    monkeypatch.setattr(Evidence, "may_be_scalar", lambda self, node, by_name: True)
    monkeypatch.setattr(Evidence, "may_carry_history", lambda self, node: True)
    for path in SOURCES:
        source = path.read_text(encoding="utf-8")
        check(ast.parse(source), source.splitlines(True), codes=["TV003"])
    assert checked.count(True) > 50 and checked.count(False) > 50


def test_a_definition_spans_the_lines_of_its_decorators():
    """A search guided by the lines that spell a word (``walk_hits``) enters a
    definition whose decorator alone spells it: ``@dec(loader := make())`` binds
    ``loader`` on the decorator's line, above the ``def``."""
    tree = ast.parse("@dec(\n    loader := make())\ndef f():\n    pass\n\nx = 1\n")
    definition = tree.body[0]
    assert spans_hit(definition, [2])
    assert not spans_hit(definition, [6])
    found = [n for n in walk_hits(tree, [2]) if isinstance(n, ast.NamedExpr)]
    assert [n.target.id for n in found] == ["loader"]


def test_innermost_stops_at_its_barriers():
    """``innermost``: the nearest ancestor of a kind, unless a barrier (a ``def``
    around a ``lambda``...) comes first."""
    tree = ast.parse("class C:\n    def f(self):\n        g = lambda: (1, 2)\n")
    cls = tree.body[0]
    func = cls.body[0]
    assign = func.body[0]
    lam = assign.value
    chain = [tree, cls, func, assign, lam, lam.body]
    assert innermost(chain, ast.Lambda, (ast.FunctionDef,)) is lam
    assert innermost(chain[:4], ast.Lambda, (ast.FunctionDef,)) is None
    assert innermost(chain, ast.ClassDef) is cls
    assert innermost(chain, ast.ClassDef, (ast.FunctionDef,)) is None
    assert innermost(chain, ast.stmt) is assign
    assert innermost([], ast.stmt) is None


def test_the_back_edge_brings_what_reaches_the_end_of_the_body():
    """At the top of a loop, a binding of the body that a later one replaces does
    not reach (``state = env.step(a)[0]`` then ``state = prep(state)``); with a
    ``continue`` in the body, every binding in it still does."""
    func = function("""
        def f(xs):
            a = 0
            for x in xs:
                print(a)
                a = 1
                a = 2
            b = 0
            while xs:
                print(b)
                b = 1
                if x:
                    continue
                b = 2
    """)
    flow = Flow(func)
    head, = (flow.reaching(r) for r in reads(func, "a"))
    assert lines(head) == [3, 7]
    head, = (flow.reaching(r) for r in reads(func, "b"))
    assert lines(head) == [8, 11, 14]


def test_after_a_loop_what_reaches_the_end_of_its_body_and_its_breaks():
    """After a loop: what reaches its entry, the end of its body and each
    ``break`` (a binding a later one replaces in the body does not)."""
    func = function("""
        def f(xs):
            a = 0
            for x in xs:
                a = 1
                if x:
                    a = 2
                    break
                a = 3
            print(a)
    """)
    after, = (Flow(func).reaching(r) for r in reads(func, "a"))
    assert lines(after) == [3, 7, 9]
