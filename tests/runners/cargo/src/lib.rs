// Unit tests: two pass, two fail (one a prefix of a passing name), one
// ignored.
pub fn div(a: i32, b: i32) -> i32 {
    a / b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add() {
        assert_eq!(1 + 1, 2);
    }

    #[test]
    fn div_ok() {
        assert_eq!(div(4, 2), 2);
    }

    #[test]
    fn div_bad() {
        assert_eq!(div(7, 2), 4);
    }

    #[test]
    fn add_bad() {
        assert_eq!(1 + 1, 3, "one and one");
    }

    #[test]
    fn add_bad_not() {
        assert_eq!(1 + 2, 3);
    }

    #[test]
    #[ignore]
    fn slow() {}
}
