class Account:
    """A bank account with a balance in cents."""

    def __init__(self, owner: str, balance: int = 0):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount: int) -> int:
        """Add amount (positive) and return the new balance."""
        self.balance += amount
        return self.balance

    def withdraw(self, amount: int) -> int:
        """Take amount out and return the new balance; raise ValueError if the balance is too low."""
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount
        return self.balance


class Matrix:
    def __init__(self, rows):
        self.rows = rows

    def transpose(self):
        """Return a new Matrix whose rows are this one's columns."""
        return Matrix([list(col) for col in zip(*self.rows)])
