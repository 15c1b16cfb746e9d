package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer's cache that keeps of each object only what the collector reads: every object is
 * passed through {@code retain} (which drops the rest in place) before it is stored. The informer
 * hands its handlers the object it stored, so they see the same reduced object, old and new alike.
 * Written because fabric8's informers take a store but, unlike client-go's, no transform function.
 */
final class RetainingItemStore<T extends HasMetadata> implements ItemStore<T> {

  private final BasicItemStore<T> store = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
  private final UnaryOperator<T> retain;

  RetainingItemStore(UnaryOperator<T> retain) {
    this.retain = retain;
  }

  @Override
  public String getKey(T object) {
    return store.getKey(object);
  }

  @Override
  public T put(String key, T object) {
    return store.put(key, retain.apply(object));
  }

  @Override
  public T remove(String key) {
    return store.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return store.keySet();
  }

  @Override
  public Stream<T> values() {
    return store.values();
  }

  @Override
  public int size() {
    return store.size();
  }

  @Override
  public T get(String key) {
    return store.get(key);
  }
}
