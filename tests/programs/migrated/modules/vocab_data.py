"""Migrated copy of ../../modules/vocab_data.py: nothing to change (a plain class)."""


class Dictionary(object):
    def __init__(self):
        self.index = {}
        self.chars = []

    def add(self, char):
        if char not in self.index:
            self.index[char] = len(self.chars)
            self.chars.append(char)
        return self.index[char]

    def __len__(self):
        return len(self.chars)


def encode(dictionary, text):
    return [dictionary.index[char] for char in text]


def spelled(dictionary):
    return "".join(dictionary.chars)
