package io.schedlens.collector.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class IntakeBudgetTest {

  @Test
  void shouldRefuseForGoodARequestThatNeedsMoreThanTheWholeBudget() {
    IntakeBudget budget = new IntakeBudget(1000);
    try (IntakeBudget.Hold hold = budget.hold()) {
      hold.take(600);
      assertThatThrownBy(() -> hold.take(500))
          .isInstanceOfSatisfying(IntakeBudget.Exhausted.class, e -> assertThat(e.never).isTrue());
    }
  }

  @Test
  void shouldHaveTheOldestWaitForRoomAndAYoungerOneGiveWay() throws Exception {
    IntakeBudget budget = new IntakeBudget(1000);
    IntakeBudget.Hold older = budget.hold();
    IntakeBudget.Hold younger = budget.hold();
    older.take(500);
    younger.take(500);
    // The younger one finds no room: refused at once, not waiting on the older one.
    long start = System.nanoTime();
    assertThatThrownBy(() -> younger.take(100))
        .isInstanceOfSatisfying(IntakeBudget.Exhausted.class, e -> assertThat(e.never).isFalse());
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(500);
    // The older one waits for room, which the younger one gives back.
    CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> older.take(400));
    assertThat(waiting).isNotDone();
    younger.close();
    waiting.get(5, TimeUnit.SECONDS);
    assertThat(older.held()).isEqualTo(900);
    older.close();
  }

  /**
   * Four requests of 300 bytes each on a budget of 1,000, all asking for their last 75 bytes at
   * once when the budget is full: one is refused and gives its room back, the other three are
   * taken.
   */
  @Test
  void shouldRefuseOneRequestAtATimeWhenTheBudgetIsFullOfParts() throws Exception {
    for (int round = 0; round < 500; round++) {
      IntakeBudget budget = new IntakeBudget(1000);
      List<IntakeBudget.Hold> holds = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        IntakeBudget.Hold h = budget.hold();
        h.take(225);
        holds.add(h);
      }
      CyclicBarrier together = new CyclicBarrier(4);
      List<CompletableFuture<Boolean>> asks = new ArrayList<>();
      for (IntakeBudget.Hold h : holds) {
        asks.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    together.await();
                    h.take(75);
                    return true;
                  } catch (IntakeBudget.Exhausted e) {
                    h.close();
                    return false;
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                }));
      }
      int refused = 0;
      for (CompletableFuture<Boolean> a : asks) {
        refused += a.get(5, TimeUnit.SECONDS) ? 0 : 1;
      }
      assertThat(refused).as("refused in round %d", round).isEqualTo(1);
      holds.forEach(IntakeBudget.Hold::close);
    }
  }
}
