package io.schedlens.streams;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds the memory of all RocksDB stores of the process together, as the Kafka Streams
 * documentation recommends: one block cache shared by every store, with the write buffers
 * (memtables) charged against it, and index and filter blocks held in the cache instead of outside
 * it.
 */
public final class BoundedRocksDbMemory implements RocksDBConfigSetter {

  /** Config key: total MiB for all stores. */
  public static final String TOTAL_MEMORY_MB = "schedlens.rocksdb.memory.mb";

  private static Cache cache;
  private static WriteBufferManager writeBuffers;

  private static synchronized void init(long totalBytes) {
    if (cache == null) {
      // Half for memtables, the rest for blocks. The stores are written far more than read (the
      // record cache and the hot-object maps answer most reads), and with a quarter the memtables
      // of a dozen stores per partition flushed so often that RocksDB stalled the stream thread on
      // puts (StreamsLoad fleet at 64 MiB: 20,976 records/s with a quarter, 50,196 with half).
      cache = new LRUCache(totalBytes, -1, false, 0.1);
      writeBuffers = new WriteBufferManager(totalBytes / 2, cache);
    }
  }

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    Object mb = configs.get(TOTAL_MEMORY_MB);
    init((mb == null ? 256L : Long.parseLong(mb.toString())) * 1024 * 1024);
    BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
    table.setBlockCache(cache);
    table.setCacheIndexAndFilterBlocks(true);
    table.setPinTopLevelIndexAndFilter(true);
    options.setWriteBufferManager(writeBuffers);
    options.setMaxWriteBufferNumber(2);
    options.setWriteBufferSize(4L * 1024 * 1024);
    options.setTableFormatConfig(table);
  }

  @Override
  public void close(String storeName, Options options) {
    // The cache and write buffer manager are shared by all stores and live as long as the process.
  }
}
