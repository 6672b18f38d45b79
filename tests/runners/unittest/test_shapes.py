# unittest: one pass, one failure, one error, one skip.
import unittest


class TestShapes(unittest.TestCase):
    def test_square(self):
        self.assertEqual(2 * 2, 4)

    def test_circle(self):
        self.assertEqual(round(3.14159, 2), 3.15)

    def test_broken(self):
        raise ValueError("no such shape")

    @unittest.skip("later")
    def test_later(self):
        pass


if __name__ == "__main__":
    unittest.main()
