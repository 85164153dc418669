"""Named tuples that cost next to nothing to define.

``typing.NamedTuple`` builds each class through ``eval`` and checks its
annotations: about 0.7 million instructions a class, paid by every editor
save that loads the plugin.  A record is a tuple subclass with a property per
field, made with ``type()``, for a tenth of that; subclass it to add a
docstring or methods::

    class Edit(record("start end text")):
        '''Replace the text from ``start`` to ``end`` by ``text``.'''

Instances compare, sort, hash and unpack like tuples, and have ``_fields``,
``_replace`` and a ``Name(field=value, ...)`` repr, as named tuples do.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any, Tuple


def record(fields: str, defaults: Tuple[Any, ...] = ()) -> type:
    """A tuple class with the space-separated ``fields``; the last ones default to ``defaults``."""
    names = tuple(fields.split())
    count = len(names)
    first_optional = count - len(defaults)
    optional = dict(zip(names[first_optional:], defaults))
    defaults = tuple(defaults)

    def __new__(cls, *args: Any, **kwargs: Any):  # noqa: N807
        if not kwargs:
            given = len(args)
            if given == count:
                return tuple.__new__(cls, args)
            if first_optional <= given < count:  # (the last fields by default, at once)
                return tuple.__new__(cls, args + defaults[given - first_optional:])
        if len(args) > count:
            raise TypeError(f"{cls.__name__}() takes {count} arguments ({len(args)} given)")
        values = list(args)
        for name in names[len(args):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in optional:
                values.append(optional[name])
            else:
                raise TypeError(f"{cls.__name__}() missing argument {name!r}")
        if kwargs:
            raise TypeError(f"{cls.__name__}() got unexpected arguments {sorted(kwargs)}")
        return tuple.__new__(cls, values)

    def __repr__(self) -> str:  # noqa: N807
        pairs = ", ".join(f"{name}={value!r}" for name, value in zip(names, self))
        return f"{type(self).__name__}({pairs})"

    def _replace(self, **changes: Any):
        return type(self)(**dict(zip(names, self), **changes))

    def __getnewargs__(self) -> tuple:  # noqa: N807  (pickle and copy)
        return tuple(self)

    namespace = {
        "__slots__": (), "__new__": __new__, "__repr__": __repr__, "_replace": _replace,
        "__getnewargs__": __getnewargs__, "_fields": names,
    }
    for index, name in enumerate(names):
        namespace[name] = property(itemgetter(index), doc=f"field {index}: {name}")
    return type("record", (tuple,), namespace)
