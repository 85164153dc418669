"""The settings of the options_checkpoint program, parsed when the module is imported (0.3 repositories kept them in a module of their own: ``from options import opt``)."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=6)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--steps", type=int, default=4)
opt = parser.parse_args([])
