def longest_increasing_run(values: list[int]) -> int:
    """Return the length of the longest run of strictly increasing consecutive values.

    >>> longest_increasing_run([1, 2, 2, 3, 4, 1])
    3
    >>> longest_increasing_run([])
    0
    """
