package io.overdrive.it.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Catalog properties for a Hive-style catalog over a file metastore on HDFS. The stock {@code hive} catalog and the
 * {@code overdrive_hive} catalog get the same properties, so both see the same schemas, tables and files.
 */
public final class HiveCatalogs
{
    private HiveCatalogs() {}

    public static Map<String, String> hiveOnHdfs(HdfsCluster hdfs, String metastorePath)
    {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("hive.metastore", "file");
        properties.put("hive.metastore.catalog.dir", hdfs.uri(metastorePath));
        properties.put("fs.hadoop.enabled", "true");
        return properties;
    }
}
