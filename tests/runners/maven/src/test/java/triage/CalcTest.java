// JUnit 4: two pass, one fails, one errors, one is skipped.
package triage;

import static org.junit.Assert.assertEquals;

import org.junit.Ignore;
import org.junit.Test;

public class CalcTest {
	@Test
	public void adds() {
		assertEquals(2, 1 + 1);
	}

	@Test
	public void addsMore() {
		assertEquals(4, 2 + 2);
	}

	@Test
	public void divides() {
		assertEquals(4, 7 / 2);
	}

	@Test
	public void throwsUp() {
		throw new IllegalStateException("no such shape");
	}

	@Ignore("later")
	@Test
	public void later() {
	}
}
