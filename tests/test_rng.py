"""The shared generator, pinned by test vectors (the same vectors as rng.rs)."""

from __future__ import annotations

from cardref.rng import MASK64, SplitMix64


def test_seed_zero_first_outputs() -> None:
    g = SplitMix64(0)
    assert [g.next_u64() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_state_wraps_modulo_2_64() -> None:
    g = SplitMix64(MASK64)
    g.next_u64()
    assert g.state == (MASK64 + 0x9E3779B97F4A7C15) & MASK64


def test_shuffle_of_ten_with_seed_zero() -> None:
    items = list(range(10))
    SplitMix64(0).shuffle(items)
    assert items == [6, 3, 2, 9, 8, 1, 4, 7, 0, 5]


def test_bounded_rejects_the_biased_tail() -> None:
    class Fixed(SplitMix64):
        """Returns scripted outputs, to reach the rejection branch."""

        def __init__(self, outputs: list[int]) -> None:
            super().__init__(0)
            self.outputs = outputs

        def next_u64(self) -> int:
            return self.outputs.pop(0)

    # For n = 3, 2**64 mod 3 = 1: only 2**64 - 1 is rejected, then 5 % 3 = 2.
    assert Fixed([MASK64, 5]).bounded(3) == 2
    assert Fixed([MASK64 - 1]).bounded(3) == (MASK64 - 1) % 3


def test_bounded_one_consumes_one_draw() -> None:
    g = SplitMix64(5)
    assert g.bounded(1) == 0
    assert g.state == 5 + 0x9E3779B97F4A7C15


def test_bounded_matches_its_definition_for_large_n() -> None:
    """n = 2**63 + 1 rejects almost half of all draws."""
    for n in [3, 104, 2**63 + 1, 2**64 - 1]:
        g, raw = SplitMix64(n), SplitMix64(n)
        limit = 2**64 - 2**64 % n
        for _ in range(100):
            x = raw.next_u64()
            while x >= limit:
                x = raw.next_u64()
            assert g.bounded(n) == x % n
            assert g.state == raw.state
