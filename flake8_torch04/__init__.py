"""flake8-torch04: find PyTorch 0.1-0.3 idioms that break or misbehave on modern PyTorch."""

__version__ = "0.1.0"
