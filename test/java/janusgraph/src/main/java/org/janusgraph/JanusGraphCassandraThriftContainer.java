package org.janusgraph;

import org.janusgraph.diskstorage.cassandra.AbstractCassandraStoreManager;
import org.janusgraph.diskstorage.configuration.ModifiableConfiguration;
import org.janusgraph.graphdb.configuration.GraphDatabaseConfiguration;

import java.time.Duration;

/**
 * Stands in for the class of the same name in janusgraph-cassandra's tests
 * jar, which starts Cassandra 2.2 in Docker through Testcontainers. Coming
 * first on the class path, this one starts nothing: the tests' storage
 * configuration names the server at the system properties
 * {@code thriftd.janusgraph.host} and {@code thriftd.janusgraph.port}, with
 * the settings the original gives (page size 500, a 60 s connection
 * timeout, keyspaces kept on clear). Without Testcontainers on the class
 * path the tests' {@code @Testcontainers} and {@code @Container}
 * annotations are ignored.
 */
public class JanusGraphCassandraThriftContainer {
    /** The longest keyspace name Cassandra accepts. */
    private static final int MAX_KEYSPACE = 48;

    public JanusGraphCassandraThriftContainer() {
    }

    public JanusGraphCassandraThriftContainer(boolean ignored) {
    }

    /** The tests skip what needs COMPACT STORAGE in CQL; the Thrift backend does not. */
    public static boolean isCompactStorageSupported() {
        return false;
    }

    public ModifiableConfiguration getThriftConfiguration(String keyspace) {
        return configuration(keyspace, "cassandrathrift");
    }

    public ModifiableConfiguration getAstyanaxConfiguration(String keyspace) {
        return configuration(keyspace, "astyanax");
    }

    public int getMappedThirftPort() {
        return port();
    }

    private static ModifiableConfiguration configuration(String keyspace, String backend) {
        ModifiableConfiguration config = GraphDatabaseConfiguration.buildGraphConfiguration();
        if (keyspace != null) {
            config.set(AbstractCassandraStoreManager.CASSANDRA_KEYSPACE, keyspaceName(keyspace));
        }
        config.set(GraphDatabaseConfiguration.PAGE_SIZE, 500);
        config.set(GraphDatabaseConfiguration.CONNECTION_TIMEOUT, Duration.ofSeconds(60));
        config.set(GraphDatabaseConfiguration.STORAGE_BACKEND, backend);
        config.set(GraphDatabaseConfiguration.STORAGE_PORT, port());
        config.set(GraphDatabaseConfiguration.STORAGE_HOSTS, new String[] {host()});
        config.set(GraphDatabaseConfiguration.DROP_ON_CLEAR, false);
        return config;
    }

    /** The name itself when Cassandra takes it, else a digest of it (as the original does). */
    private static String keyspaceName(String name) {
        if (name.length() > MAX_KEYSPACE || !name.matches("[a-zA-Z0-9_]+")) {
            return "strhash" + Math.abs(name.hashCode());
        }
        return name;
    }

    private static String host() {
        return System.getProperty("thriftd.janusgraph.host", "127.0.0.1");
    }

    private static int port() {
        return Integer.parseInt(System.getProperty("thriftd.janusgraph.port", "9160"));
    }
}
