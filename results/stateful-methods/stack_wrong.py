class Stack:
    """A last-in first-out stack."""

    def __init__(self):
        self.items = []

    def push(self, item):
        """Put item on top of the stack."""
        self.items.append(item)

    def pop(self):
        """Remove and return the top item; raise IndexError when the stack is empty."""
        if not self.items:
            raise IndexError("pop from empty stack")
        return self.items.pop(0)
