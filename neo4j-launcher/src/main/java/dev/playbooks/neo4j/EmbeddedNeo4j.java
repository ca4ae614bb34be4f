package dev.playbooks.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.nio.file.Files;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

/**
 * Neo4j embedded with its Bolt connector on loopback, for machines without Docker
 * ("Accessing Neo4j embedded via the Bolt protocol" in the Neo4j Java reference).
 *
 * <p>Usage: {@code EmbeddedNeo4j <dataDir> <boltPort> [pageCacheMb] [setting=value ...]}; the settings are
 * passed to Neo4j as they are (e.g. {@code db.query.default_language=CYPHER_25}). Prints {@code READY bolt://127.0.0.1:PORT}
 * once Bolt accepts connections. It stops cleanly on SIGTERM/SIGINT and also when its standard input
 * closes, so that it never outlives the Node process that started it.
 */
public final class EmbeddedNeo4j {
  private EmbeddedNeo4j() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: EmbeddedNeo4j <dataDir> <boltPort> [pageCacheMb]");
      System.exit(2);
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    int port = Integer.parseInt(args[1]);
    long pageCacheMb = args.length > 2 ? Long.parseLong(args[2]) : 512;
    // Extra settings go through a properties file: the only raw-settings entry point both 5.26 and 2026.x have.
    // A local development database reports nothing to Neo4j's usage-data service (on by default).
    StringBuilder extra = new StringBuilder("dbms.usage_report.enabled=false\n");
    for (int i = 3; i < args.length; i++) {
      if (args[i].indexOf('=') <= 0) throw new IllegalArgumentException("expected setting=value, got " + args[i]);
      extra.append(args[i]).append('\n');
    }
    Files.createDirectories(home);
    Path conf = home.resolve("launcher.conf");
    Files.writeString(conf, extra.toString());

    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
            .setConfig(HttpConnector.enabled, false)
            // Loopback only and started by the project itself: the driver's credentials are accepted as given.
            .setConfig(GraphDatabaseSettings.auth_enabled, false)
            .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
            .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofSeconds(60))
            .loadPropertiesFromFile(conf)
            .build();
    // Opening the default database blocks until it is available.
    dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).isAvailable(60_000);

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  dbms.shutdown();
                  stopped.countDown();
                },
                "neo4j-shutdown"));

    System.out.println("READY bolt://127.0.0.1:" + port);
    System.out.flush();

    Thread stdinWatch =
        new Thread(
            () -> {
              try (InputStream in = System.in) {
                while (in.read() != -1) {
                  // Anything written is ignored; only end-of-file matters.
                }
              } catch (IOException ignored) {
                // A broken pipe means the parent is gone, same as end-of-file.
              }
              System.exit(0);
            },
            "stdin-watch");
    stdinWatch.setDaemon(true);
    stdinWatch.start();
    stopped.await();
  }
}
