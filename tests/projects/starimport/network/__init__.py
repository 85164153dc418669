from .base_network import *
