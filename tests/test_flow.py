"""Data-flow facts (``_flow``): reaching definitions through branches, loops,
``try``/``with`` blocks, accumulation across iterations, sinks, no-grad regions."""
import ast
import textwrap

from flake8_torch04._flow import Flow, enclosing_loop, grad_disabled, key


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


def test_linear_in_size():
    """A long function with many keys and branches is walked quickly."""
    import time

    body = "".join(
        f"    if c:\n        v{i} = v{i - 1} + 1\n    else:\n        v{i} = 0\n"
        f"    for _ in r:\n        v{i} += v{i}\n"
        for i in range(1, 2000)
    )
    func = function(f"def f(c, r):\n    v0 = 0\n{body}    return v1999\n")
    start = time.perf_counter()
    flow = Flow(func)
    flow.reaching(reads(func, "v1999")[-1])
    assert time.perf_counter() - start < 5
