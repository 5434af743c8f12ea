package ldbstore

import (
	"strconv"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
)

// The Store's figures on /metrics, read from goleveldb's DB.Stats when
// scraped. The Store is a prometheus.Collector; whoever owns the registry
// registers it (see engine's optional interfaces).
var (
	descLevelSize = prometheus.NewDesc("thriftd_leveldb_level_size_bytes",
		"Size of the tables of each LevelDB level.", []string{"level"}, nil)
	descLevelTables = prometheus.NewDesc("thriftd_leveldb_level_tables",
		"Number of tables in each LevelDB level.", []string{"level"}, nil)
	descLevelRead = prometheus.NewDesc("thriftd_leveldb_compaction_read_bytes_total",
		"Bytes read by compactions, by the level compacted into.", []string{"level"}, nil)
	descLevelWrite = prometheus.NewDesc("thriftd_leveldb_compaction_write_bytes_total",
		"Bytes written by compactions, by the level compacted into.", []string{"level"}, nil)
	descLevelTime = prometheus.NewDesc("thriftd_leveldb_compaction_duration_seconds_total",
		"Time spent in compactions, by the level compacted into.", []string{"level"}, nil)
	descCompactions = prometheus.NewDesc("thriftd_leveldb_compactions_total",
		"Compactions since the store opened, by kind: memtable (a flush), level0, nonlevel0, seek.", []string{"kind"}, nil)
	descDelays = prometheus.NewDesc("thriftd_leveldb_write_delays_total",
		"Writes delayed because level 0 had too many tables.", nil, nil)
	descDelayTime = prometheus.NewDesc("thriftd_leveldb_write_delay_seconds_total",
		"Time writes spent delayed by level 0 slowdowns and stops.", nil, nil)
	descPaused = prometheus.NewDesc("thriftd_leveldb_write_paused",
		"1 while writes are stopped until a compaction catches up.", nil, nil)
	descIORead = prometheus.NewDesc("thriftd_leveldb_io_read_bytes_total",
		"Bytes read from table and journal files.", nil, nil)
	descIOWrite = prometheus.NewDesc("thriftd_leveldb_io_write_bytes_total",
		"Bytes written to table and journal files.", nil, nil)
	descBlockCache = prometheus.NewDesc("thriftd_leveldb_block_cache_bytes",
		"Bytes held in the block cache.", nil, nil)
	descOpenTables = prometheus.NewDesc("thriftd_leveldb_open_tables",
		"Table files held open.", nil, nil)
	descDiskFree = prometheus.NewDesc("thriftd_leveldb_disk_free_bytes",
		"Bytes free for thriftd on the file system of the data directory (what df's Avail says).", nil, nil)
	descDiskSize = prometheus.NewDesc("thriftd_leveldb_disk_size_bytes",
		"Size of the file system of the data directory.", nil, nil)
	descScanRows = prometheus.NewDesc("thriftd_leveldb_scan_rows_total",
		"Rows range scans read, by where from: head (the row's head alone), data (the data region, the head too short for the slice), rebuilt (the data region, the head stale and rebuilt).", []string{"source"}, nil)
)

// Describe implements prometheus.Collector.
func (st *Store) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descLevelSize, descLevelTables, descLevelRead, descLevelWrite, descLevelTime,
		descCompactions, descDelays, descDelayTime, descPaused, descIORead, descIOWrite, descBlockCache, descOpenTables, descScanRows, descDiskFree, descDiskSize} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A closed or failed store
// reports nothing.
func (st *Store) Collect(ch chan<- prometheus.Metric) {
	s, err := st.dbStats()
	if err != nil {
		return
	}
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	for i := range s.LevelSizes {
		l := strconv.Itoa(i)
		ch <- prometheus.MustNewConstMetric(descLevelSize, gauge, float64(s.LevelSizes[i]), l)
		if i < len(s.LevelTablesCounts) {
			ch <- prometheus.MustNewConstMetric(descLevelTables, gauge, float64(s.LevelTablesCounts[i]), l)
		}
		if i < len(s.LevelRead) {
			ch <- prometheus.MustNewConstMetric(descLevelRead, counter, float64(s.LevelRead[i]), l)
		}
		if i < len(s.LevelWrite) {
			ch <- prometheus.MustNewConstMetric(descLevelWrite, counter, float64(s.LevelWrite[i]), l)
		}
		if i < len(s.LevelDurations) {
			ch <- prometheus.MustNewConstMetric(descLevelTime, counter, s.LevelDurations[i].Seconds(), l)
		}
	}
	ch <- prometheus.MustNewConstMetric(descCompactions, counter, float64(s.MemComp), "memtable")
	ch <- prometheus.MustNewConstMetric(descCompactions, counter, float64(s.Level0Comp), "level0")
	ch <- prometheus.MustNewConstMetric(descCompactions, counter, float64(s.NonLevel0Comp), "nonlevel0")
	ch <- prometheus.MustNewConstMetric(descCompactions, counter, float64(s.SeekComp), "seek")
	ch <- prometheus.MustNewConstMetric(descDelays, counter, float64(s.WriteDelayCount))
	ch <- prometheus.MustNewConstMetric(descDelayTime, counter, s.WriteDelayDuration.Seconds())
	paused := 0.0
	if s.WritePaused {
		paused = 1
	}
	ch <- prometheus.MustNewConstMetric(descPaused, gauge, paused)
	ch <- prometheus.MustNewConstMetric(descIORead, counter, float64(s.IORead))
	ch <- prometheus.MustNewConstMetric(descIOWrite, counter, float64(s.IOWrite))
	ch <- prometheus.MustNewConstMetric(descBlockCache, gauge, float64(s.BlockCacheSize))
	ch <- prometheus.MustNewConstMetric(descOpenTables, gauge, float64(s.OpenedTablesCount))
	// The file system's room: a full disk stops writes (guarantees in the
	// README), and an alert on it comes before that.
	var fs syscall.Statfs_t
	if syscall.Statfs(st.dir, &fs) == nil {
		ch <- prometheus.MustNewConstMetric(descDiskFree, gauge, float64(fs.Bavail)*float64(fs.Bsize))
		ch <- prometheus.MustNewConstMetric(descDiskSize, gauge, float64(fs.Blocks)*float64(fs.Bsize))
	}
	ch <- prometheus.MustNewConstMetric(descScanRows, counter, float64(st.scanStats.fromHead.Load()), "head")
	ch <- prometheus.MustNewConstMetric(descScanRows, counter, float64(st.scanStats.fromData.Load()), "data")
	ch <- prometheus.MustNewConstMetric(descScanRows, counter, float64(st.scanStats.rebuilt.Load()), "rebuilt")
}
