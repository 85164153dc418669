"""Migrated copy of ../../modules/run_settings.py: nothing to change (a module of plain settings)."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=6)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--steps", type=int, default=4)
opt = parser.parse_args([])
