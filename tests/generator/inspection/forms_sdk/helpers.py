def looped_one(b: int) -> int:
    return b


def looped_two(c: int) -> int:
    return c


LOOPED = [looped_one, looped_two]
