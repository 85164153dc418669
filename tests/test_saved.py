"""TV106 through the project's ``torch.save`` calls (analysis/saved.py): what a
load returns is read off the saves to the same path, in the file and in the
project's other modules."""
import ast
import textwrap
from pathlib import Path

import pytest

from flake8_torch04.analysis import foreign, saved
from flake8_torch04.analysis.project import importers
from flake8_torch04.analysis.run import check_source

OPTIONS = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument('--save', default='model.pt')
parser.add_argument('--dir', default='.')
opt = parser.parse_args()
"""

MODELS = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc = nn.Linear(4, 2)
"""

EVAL = """\
import torch
from options import opt


def evaluate(run):
    data = torch.load(opt.save)
    return run(data)
"""


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def messages(path):
    text = Path(path).read_text(encoding="utf-8")
    return [f"{f.line}: {f.message}" for f in check_source(text, str(path), ["TV106"])]


@pytest.fixture(autouse=True)
def fresh():
    importers.forget()
    yield
    importers.forget()


def test_namespace_under_a_key_saved_in_another_module(tmp_path):
    write(tmp_path, {"options.py": OPTIONS, "models.py": MODELS, "train.py": """\
        import argparse
        import torch
        from models import Net


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument('--save', default='model.pt')
            opt = parser.parse_args()
            model = Net()
            checkpoint = {'settings': opt, 'model': model.state_dict(), 'epoch': 3}
            torch.save(checkpoint, opt.save)
        """, "eval.py": EVAL})
    (found,) = messages(tmp_path / "eval.py")
    assert found.startswith("6: `torch.load(opt.save)` loads a pickled object (saved as an "
                            "`argparse.Namespace` under `['settings']` at train.py:12)")


@pytest.mark.parametrize("options, flagged", [
    (OPTIONS, True),
    # rebound when a function of options.py runs, or bound there otherwise too: unknown
    (OPTIONS + "\n\ndef reset():\n    global opt\n    opt = None\n", False),
    (OPTIONS + "try:\n    from local import opt\nexcept ImportError:\n    pass\n", False),
    (OPTIONS.replace("opt = parser.parse_args()", "for opt in [parser.parse_args()]:\n    pass"),
     False),
])
def test_a_value_imported_from_another_module_is_read_there(tmp_path, options, flagged):
    """``opt`` is what ``options.py`` binds at its top (``parser.parse_args()``)
    where it binds it by assignments only."""
    write(tmp_path, {"options.py": options, "train.py": """\
        import torch
        from options import opt

        torch.save({'settings': opt}, opt.save)
        """, "eval.py": EVAL})
    found = messages(tmp_path / "eval.py")
    assert [m.split(":")[0] for m in found] == (["6"] if flagged else [])
    if flagged:
        assert "saved as an `argparse.Namespace` under `['settings']` at train.py:4" in found[0]


def test_whole_model_of_a_project_class_saved_in_another_module(tmp_path):
    write(tmp_path, {"options.py": OPTIONS, "models.py": MODELS, "train.py": """\
        import torch
        from models import Net
        from options import opt


        def main():
            net = Net().cuda()
            with open(opt.save, 'wb') as f:
                torch.save(net, f)
        """, "eval.py": EVAL})
    (found,) = messages(tmp_path / "eval.py")
    assert "loads a whole model (saved as a `Net` at train.py:9)" in found


@pytest.mark.parametrize("imports, made", [
    ("import models", "models.Net()"),
    ("import models as M", "M.Net().cuda()"),
])
def test_a_class_of_an_imported_project_module(tmp_path, imports, made):
    write(tmp_path, {"options.py": OPTIONS, "models.py": MODELS, "eval.py": EVAL,
                     "train.py": f"import torch\n{imports}\nfrom options import opt\n"
                                 f"torch.save({made}, opt.save)\n"})
    (found,) = messages(tmp_path / "eval.py")
    assert "loads a whole model (saved as a `Net` at train.py:4)" in found


def test_an_attribute_that_is_not_a_project_class(tmp_path):
    write(tmp_path, {"options.py": OPTIONS, "models.py": MODELS + "\n\ndef make():\n"
                     "    return Net()\n", "eval.py": EVAL,
                     "train.py": "import torch\nimport models\nimport torch.nn as nn\n"
                                 "from options import opt\n"
                                 "torch.save(models.make(), opt.save)\n"
                                 "torch.save(models.Net, 'class.pt')\n"
                                 "torch.save(models.models.Net(), 'deep.pt')\n"})
    assert messages(tmp_path / "eval.py") == []


def test_numpy_array_saved_under_a_joined_path(tmp_path):
    write(tmp_path, {"options.py": OPTIONS, "prepare.py": """\
        import os
        import numpy as np
        import torch
        from options import opt

        data = np.sin(np.arange(10)).astype('float64')
        torch.save(data, os.path.join(opt.dir, 'train.pt'))
        """, "train.py": """\
        import os
        import torch
        from options import opt

        data = torch.load(os.path.join(opt.dir, 'train.pt'))
        other = torch.load(os.path.join(opt.dir, 'test.pt'))
        print(data, other)
        """})
    (found,) = messages(tmp_path / "train.py")
    assert found.startswith("5: `torch.load(os.path.join(opt.dir, 'tra...` loads a numpy value "
                            "(saved as a numpy value at prepare.py:7)")


RESUMED = """\
    import os
    import torch
    from options import opt


    def create():
        state = {'settings': opt, 'epoch': 0}
        if os.path.exists(opt.save):  # resume: the file holds what main() saves
            state = torch.load(opt.save)
        return state


    def main():
        state = create()
        state['epoch'] += 1
        torch.save(state, opt.save)
    """


def test_a_resumed_checkpoint_adds_nothing_to_what_its_save_writes(tmp_path):
    """The reload of the path a save writes holds what that save writes: joined
    with the dict literal it drops out, and both loads are flagged."""
    write(tmp_path, {"options.py": OPTIONS, "train.py": RESUMED, "eval.py": EVAL})
    (found,) = messages(tmp_path / "eval.py")
    assert found.startswith("6: `torch.load(opt.save)` loads a pickled object (saved as an "
                            "`argparse.Namespace` under `['settings']` at train.py:16)")
    (resumed,) = messages(tmp_path / "train.py")
    assert resumed.startswith("9: `torch.load(opt.save)` loads a pickled object")


def test_a_module_constant_made_of_an_unknown_call_is_its_own_path(tmp_path):
    """``CHECKPOINT = os.path.join(tempfile.mkdtemp(), 'm.pt')``, bound once: every
    read of the name in the module is the same path."""
    write(tmp_path, {"train.py": """\
        import argparse
        import os
        import tempfile
        import torch

        opt = argparse.ArgumentParser().parse_args([])
        CHECKPOINT = os.path.join(tempfile.mkdtemp(), 'm.pt')


        def save():
            torch.save({'opt': opt}, CHECKPOINT)


        def load():
            return torch.load(CHECKPOINT)['opt']
        """})
    (found,) = messages(tmp_path / "train.py")
    assert found.startswith("15: `torch.load(CHECKPOINT)` loads a pickled object")


@pytest.mark.parametrize("train", [
    # a load of another path is not a resume: unknown
    RESUMED.replace("state = torch.load(opt.save)", "state = torch.load(opt.other)"),
    # the reload is the only binding: nothing known of what is saved
    RESUMED.replace("state = {'settings': opt, 'epoch': 0}\n        if os.path.exists(opt.save)"
                    ":  # resume: the file holds what main() saves\n            ", ""),
])
def test_a_reload_is_nothing_new_only_beside_a_known_value(tmp_path, train):
    assert train != RESUMED
    ast.parse(textwrap.dedent(train))
    write(tmp_path, {"options.py": OPTIONS, "train.py": train, "eval.py": EVAL})
    assert messages(tmp_path / "eval.py") == []


@pytest.mark.parametrize("saves", [
    # a state dict, a tensor, numbers: loaded fine with weights_only=True
    {"train.py": "import torch\nfrom models import Net\nfrom options import opt\n"
                 "torch.save(Net().state_dict(), opt.save)\n"},
    {"train.py": "import torch\nfrom options import opt\n"
                 "torch.save({'w': torch.zeros(3), 'epoch': 3, 'best': [0.5]}, opt.save)\n"},
    # two modules save different kinds to the same path
    {"train.py": "import torch\nfrom models import Net\nfrom options import opt\n"
                 "torch.save(Net(), opt.save)\n",
     "prepare.py": "import numpy as np\nimport torch\nfrom options import opt\n"
                   "torch.save(np.zeros(3), opt.save)\n"},
    # a whole model beside a value that is unknown
    {"train.py": "import torch\nfrom models import Net\nfrom options import opt\n"
                 "torch.save(Net(), opt.save)\n",
     "resume.py": "import torch\nfrom options import opt\n\n\ndef keep(model):\n"
                  "    torch.save(model, opt.save)\n"},
    # the project's own ``save``, not torch's
    {"utils.py": "import pickle\n\n\ndef save(obj, path):\n"
                 "    with open(path, 'wb') as f:\n        pickle.dump(obj, f)\n",
     "train.py": "from models import Net\nfrom options import opt\nfrom utils import save\n"
                 "save(Net(), opt.save)\n"},
    # another path; a path that is a parameter of another function
    {"train.py": "import torch\nfrom models import Net\nfrom options import opt\n"
                 "torch.save(Net(), opt.save_to)\n\n\ndef keep(path):\n"
                 "    torch.save(Net(), path)\n"},
])
def test_silent(tmp_path, saves):
    write(tmp_path, {"options.py": OPTIONS, "models.py": MODELS, "eval.py": EVAL, **saves})
    assert messages(tmp_path / "eval.py") == []


def test_only_modules_that_spell_save_are_read(tmp_path, monkeypatch):
    write(tmp_path, {"options.py": OPTIONS, "models.py": MODELS, "eval.py": EVAL,
                     "notes.py": "# the word save, but no call of it\nsave = 1\n",
                     "train.py": "import torch\nfrom models import Net\nfrom options import opt\n"
                                 "torch.save(Net(), opt.save)\n"})
    read = []
    context = foreign.module_context
    monkeypatch.setattr(foreign, "module_context",
                        lambda path: read.append(Path(path).name) or context(path))
    assert len(messages(tmp_path / "eval.py")) == 1
    assert "train.py" in read
    assert "notes.py" not in read and "options.py" not in read


def test_a_file_without_a_load_reads_nothing(tmp_path, monkeypatch):
    write(tmp_path, {"options.py": OPTIONS, "train.py": "import torch\nfrom options import opt\n"
                                                        "torch.save(opt, opt.save)\n"})

    def refuse(*args):
        raise AssertionError("the project was searched")

    monkeypatch.setattr(saved, "_spelling_save", refuse)
    monkeypatch.setattr(saved, "_saves", refuse)
    text = (tmp_path / "train.py").read_text()
    assert check_source(text, str(tmp_path / "train.py"), ["TV106"]) == []


def test_too_many_modules_is_unknown(tmp_path, monkeypatch):
    monkeypatch.setattr(saved, "MOST_MODULES", 1)
    write(tmp_path, {"options.py": OPTIONS, "models.py": MODELS, "eval.py": EVAL,
                     "a.py": "import torch\nfrom models import Net\nfrom options import opt\n"
                             "torch.save(Net(), opt.save)\n",
                     "b.py": "import torch\nfrom models import Net\nfrom options import opt\n"
                             "torch.save(Net(), opt.save)\n"})
    assert messages(tmp_path / "eval.py") == []


@pytest.mark.parametrize("save, load, same", [
    ("'a.pt'", "'a.pt'", True),
    ("'a.pt'", "'b.pt'", False),
    ("args.save", "args.save", True),
    ("args.save", "opt.save", False),
    ("os.path.join(args.dir, 'm.pt')", "os.path.join(args.dir, 'm.pt')", True),
    ("'%s/m.pt' % args.dir", "'%s/m.pt' % args.dir", True),
    ("f'{args.dir}/m.pt'", "f'{args.dir}/m.pt'", True),
    ("f'{args.dir}/m.pt'", "f'{args.dir}/n.pt'", False),
    ("args.dir + 'm.pt'", "args.dir + 'n.pt'", False),
    ("paths[0]", "paths[0]", False),  # (a subscript by a number: the same as nothing)
    # a configuration dict's key reads as an attribute (sweep 25: charlm)
    ("args['save'] + '.cpu'", "args['save'] + '.cpu'", True),
    ("args['save']", "args['load']", False),
    ("args['save']", "args.save", False),
    ("args['paths'].model", "args['paths'].model", True),
    ("args[key]", "args[key]", False),
    ("io.BytesIO()", "io.BytesIO()", False),  # (each call another file)
    ("make_path(args)", "make_path(args)", False),
    ("'{}/m.pt'.format(args.dir)", "'{}/m.pt'.format(args.dir)", True),
    ("str(args.save)", "args.save", False),
])
def test_same_path(tmp_path, save, load, same):
    source = textwrap.dedent(f"""\
        import io
        import os
        import torch
        import torch.nn as nn
        from paths import make_path


        def train(args, paths):
            torch.save(nn.Linear(2, 2), {save})


        def evaluate(args, paths):
            m = torch.load({load})
            return [m]
        """)
    found = check_source(source, str(tmp_path / "saving.py"), ["TV106"])
    assert bool(found) is same


def test_names_are_followed_to_their_one_assignment(tmp_path):
    source = textwrap.dedent("""\
        import torch
        import torch.nn as nn

        ROOT = 'runs'


        def train(epoch):
            name = ROOT + '/last.pt'
            torch.save(nn.Linear(2, 2), name)
            step = ROOT + '/e%d.pt' % epoch
            torch.save(nn.Linear(2, 2), step)


        def evaluate(epoch):
            path = ROOT + '/last.pt'
            m = torch.load(path)
            step = ROOT + '/e%d.pt' % epoch
            n = torch.load(step)  # (another function's ``epoch``)
            return [m, n]
        """)
    assert [f.line for f in check_source(source, str(tmp_path / "saving.py"), ["TV106"])] == [16]


def test_a_buffer_is_itself(tmp_path):
    source = textwrap.dedent("""\
        import io
        import torch
        import torch.nn as nn

        buffer = io.BytesIO()
        other = io.BytesIO()
        torch.save(nn.Linear(2, 2), buffer)
        buffer.seek(0)
        print([torch.load(buffer), torch.load(other)])
        """)
    found = check_source(source, str(tmp_path / "saving.py"), ["TV106"])
    assert [(f.line, f.col) for f in found] == [(9, 7)]


def test_a_save_in_the_same_notebook(tmp_path):
    import json

    from cli_runner import in_process

    cells = [["import torch\n", "import torch.nn as nn\n",
              "torch.save(nn.Linear(2, 2), 'm.pt')\n"],
             ["m = torch.load('m.pt')\n", "print(m)\n"]]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                           "outputs": [], "source": cell} for cell in cells],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 2}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    status, out, _ = in_process("check", "nb.ipynb", "--isolated", "--select", "TV106",
                                cwd=tmp_path)
    assert "nb.ipynb:cell 2, line 1, col 5: TV106 `torch.load('m.pt')` loads a whole model " \
           "(saved as a `nn.Linear` in this notebook)" in out


@pytest.mark.parametrize("key, word", [
    ("args.save", "args.save"),
    ("'model.pt'", "model.pt"),
    ("=os.path.join(args.dir, 'model.pt')", "args.dir"),
    ("('%s/m.pt' Mod args.outf)", "args.outf"),
    ("=<project>/x/config.py.PATH", "PATH"),
    ("'a b'", None),
])
def test_the_word_a_saving_module_spells(key, word):
    """(only the modules whose text holds it are parsed)"""
    assert saved._anchor(key) == word


def test_a_key_of_the_files_own_variables_reads_no_other_module(tmp_path, monkeypatch):
    write(tmp_path, {"train.py": "import torch\nimport torch.nn as nn\n\n\n"
                                 "def keep(run):\n    torch.save(nn.Linear(2, 2), 'runs/' + run)\n"
                                 "    return torch.load('runs/' + run)\n"})

    def refuse(*args):
        raise AssertionError("the project was searched")

    monkeypatch.setattr(saved, "_spelling_save", refuse)
    (found,) = messages(tmp_path / "train.py")
    assert "saved as a `nn.Linear` at line 6" in found


DATA = """\
import torch
from torch import Tensor


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}


class Indices(torch.LongTensor):
    pass


class Scores(Tensor):
    pass
"""


@pytest.mark.parametrize("imports, made, flagged", [
    ("from data import Dictionary", "Dictionary()", True),
    ("import data", "data.Dictionary()", True),
    ("from data import Indices", "Indices()", False),  # (a tensor's class)
    ("from data import Scores", "Scores()", False),
    ("from data import Dictionary\nDictionary = dict", "Dictionary()", False),
])
def test_an_instance_of_a_plain_class_of_the_project(tmp_path, imports, made, flagged):
    """A pickled instance of any class of the project is refused by weights_only=True."""
    write(tmp_path, {"options.py": OPTIONS, "data.py": DATA, "eval.py": EVAL,
                     "train.py": f"import torch\n{imports}\nfrom options import opt\n"
                                 f"torch.save({{'dictionary': {made}}}, opt.save)\n"})
    found = messages(tmp_path / "eval.py")
    assert [m.split(":")[0] for m in found] == (["6"] if flagged else [])
    if flagged:
        assert "(saved as a `Dictionary` under `['dictionary']` at train.py:" in found[0]


HELPERS = """\
import torch


def save_model(model, path):
    with open(path, 'wb') as f:
        torch.save(model, f)


def save_state(model, path='state.pt'):
    torch.save(model.state_dict(), path)


def load_model(path):
    return torch.load(path)
"""

SAVING = """\
import torch.nn as nn
import utils
from options import opt

model = nn.Linear(2, 2)
utils.save_model(model, opt.save)
"""


def helper_messages(tmp_path, files):
    write(tmp_path, {"options.py": OPTIONS, "utils.py": HELPERS, "train.py": SAVING, **files})
    return messages(tmp_path / "utils.py")


def test_a_load_in_a_helper_of_what_a_save_helper_wrote(tmp_path):
    """``load_model(opt.save)`` and ``save_model(model, opt.save)``: both helpers take
    the path; the load is flagged where it is, naming the call that saved."""
    found = helper_messages(tmp_path, {"eval.py": """\
        from options import opt
        from utils import load_model


        def main():
            return load_model(opt.save)
        """})
    assert found == ["14: `torch.load(path)` loads a whole model (saved as a `nn.Linear` at "
                     "train.py:6), refused by weights_only=True (the default since PyTorch "
                     "2.6); add `weights_only=False`, only for files you trust"]


@pytest.mark.parametrize("files", [
    # a caller loads a file no save is seen to write
    {"eval.py": "from options import opt\nfrom utils import load_model\n"
                "load_model(opt.save)\nload_model('elsewhere.pt')\n"},
    # a caller loads a state dict (written by the other helper, through its default)
    {"eval.py": "from options import opt\nfrom utils import load_model\n"
                "load_model(opt.save)\nload_model('state.pt')\n",
     "more.py": "import torch.nn as nn\nimport utils\nutils.save_state(nn.Linear(2, 2))\n"},
    # the helper is used otherwise than called: not every path is in view
    {"eval.py": "from options import opt\nfrom utils import load_model\n"
                "load_model(opt.save)\nLOADERS = [load_model]\n"},
    # a function of another module with the same name
    {"eval.py": "from options import opt\nfrom utils import load_model\nimport other\n"
                "load_model(opt.save)\nother.load_model(opt.save)\n",
     "other.py": "def load_model(path):\n    return path\n"},
    # what is passed is not evident
    {"eval.py": "from options import opt\nfrom utils import load_model\n"
                "load_model(opt.save)\nload_model(*[opt.save])\n"},
])
def test_a_load_helper_whose_callers_are_not_all_evident(tmp_path, files):
    assert helper_messages(tmp_path, files) == []


def test_a_save_helper_called_in_its_own_script(tmp_path):
    """A script's own helper, its path given by a constant default."""
    write(tmp_path, {"train.py": """\
        import torch
        import torch.nn as nn


        def checkpoint(net, filename='net.pkl'):
            torch.save(net, filename)


        checkpoint(nn.Linear(2, 2))
        loaded = torch.load('net.pkl')
        print(loaded)
        """})
    (found,) = messages(tmp_path / "train.py")
    assert found.startswith("10: `torch.load('net.pkl')` loads a whole model (saved as a "
                            "`nn.Linear` at line 9)")


def test_a_save_and_a_load_of_one_parameter_in_one_function(tmp_path):
    write(tmp_path, {"train.py": "import torch\nimport torch.nn as nn\n\n\n"
                                 "def keep(path):\n    torch.save(nn.Linear(2, 2), path)\n"
                                 "    return torch.load(path)\n"})
    (found,) = messages(tmp_path / "train.py")
    assert "saved as a `nn.Linear` at line 6" in found


def test_a_helper_changed_on_disk_since_the_text_checked(tmp_path):
    """An editor checks ``utils.py`` as typed; its calls are read from the disk,
    where ``load_model`` is no longer that function: unknown, and no error."""
    write(tmp_path, {"options.py": OPTIONS, "utils.py": "class load_model(object):\n    pass\n",
                     "eval.py": "from options import opt\nfrom utils import load_model\n"
                                "load_model(opt.save)\n", "train.py": SAVING.replace(
                                    "utils.save_model(model, opt.save)",
                                    "torch.save(model, opt.save)").replace(
                                    "import utils", "import torch")})
    typed = textwrap.dedent(HELPERS)
    assert check_source(typed, str(tmp_path / "utils.py"), ["TV106"]) == []


def test_a_path_made_of_a_helpers_parameter(tmp_path):
    """``def load_models(load_path)`` loads ``os.path.join(load_path, 'model.pt')``:
    with what its callers pass (``args.outf``), the path a script saved a module to."""
    write(tmp_path, {"options.py": OPTIONS, "train.py": """\
        import os
        import torch
        import torch.nn as nn
        from options import opt

        torch.save(nn.Linear(2, 2), os.path.join(opt.dir, 'model.pt'))
        torch.save(nn.Linear(2, 2).state_dict(), os.path.join(opt.dir, 'state.pt'))
        """, "generate.py": """\
        import os
        import torch
        from options import opt


        def load_models(load_path, name):
            return torch.load(os.path.join(load_path, name))


        def load_state(load_path):
            return torch.load(os.path.join(load_path, 'state.pt'))


        model = load_models(opt.dir, 'model.pt')
        state = load_state(opt.dir)
        """})
    (found,) = messages(tmp_path / "generate.py")
    assert found.startswith("7: `torch.load(os.path.join(load_path, na...` loads a whole model "
                            "(saved as a `nn.Linear` at train.py:6)")
